#include "core/analysis/rulesuggest.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>

#include "core/analysis/kernelname.h"
#include "core/analysis/operatorcategory.h"

namespace reach {

namespace {

// Wrappers whose own name says nothing: CUTLASS's device_kernel<Kernel>, Kernel2<...>.
bool isWrapper(std::string_view base) {
    static constexpr std::array<std::string_view, 5> kWrappers = {
        "device_kernel", "Kernel", "Kernel2", "kernel", "GenericKernel"};
    return std::find(kWrappers.begin(), kWrappers.end(), base) != kWrappers.end();
}

bool hasDigit(std::string_view token) {
    return std::any_of(token.begin(), token.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string stemOf(std::string_view name, int depth) {
    // The function name as display names read it (core/analysis/kernelname.h): one parser of
    // demangled names for both questions.
    const KernelFunctionName parts = kernelFunctionName(name);
    const size_t colon = parts.qualified.rfind("::");
    const std::string ns = colon == std::string::npos ? "" : parts.qualified.substr(0, colon + 2);
    const std::string base =
        colon == std::string::npos ? parts.qualified : parts.qualified.substr(colon + 2);
    if (isWrapper(base) && !parts.firstTemplateArg.empty() && depth < 3) {
        const std::string inner = stemOf(parts.firstTemplateArg, depth + 1);
        if (!inner.empty())
            return inner;
    }
    // Keep the first token; stop at the first later one with a digit (tile shapes, sizes).
    std::string kept;
    size_t start = 0;
    for (bool first = true; start <= base.size(); first = false) {
        const size_t end = std::min(base.find('_', start), base.size());
        const std::string_view token(base.data() + start, end - start);
        if (!first && hasDigit(token))
            break;
        if (!first)
            kept += '_';
        kept += token;
        start = end + 1;
    }
    while (!kept.empty() && kept.back() == '_')
        kept.pop_back();
    if (kept.empty() || kept == "_")
        return {};
    return ns + kept;
}

struct Group {
    std::string stem;
    std::vector<const ClassifiedKernel*> kernels;
    std::map<std::string, double> operatorUs;  // opinionated deciding operators -> time
    double totalUs = 0;
};

// Anchored at the start when every kernel's name begins with the stem (Triton and
// TensorRT-LLM-gen names), so /^bmm_/ does not also match baddbmm; else the literal anywhere.
std::string patternFor(const std::string& stem, const std::vector<std::string>& kernels) {
    bool prefix = true, underscore = true;
    for (const std::string& k : kernels) {
        std::string_view n = k;
        if (n.starts_with("void "))
            n.remove_prefix(5);
        prefix = prefix && n.starts_with(stem);
        underscore = underscore && n.size() > stem.size() && n[stem.size()] == '_';
    }
    if (!prefix) {
        // The stem leaves out "(anonymous namespace)::" (at::native::(anonymous
        // namespace)::max_pool_forward_nhwc); the pattern lets it stand between any two parts.
        const bool anon = std::any_of(kernels.begin(), kernels.end(), [](const std::string& k) {
            return k.find("(anonymous namespace)::") != std::string::npos;
        });
        if (!anon)
            return literalPattern(stem);
        std::string out;
        for (size_t start = 0;;) {
            const size_t colon = stem.find("::", start);
            out += literalPattern(stem.substr(start, colon - start));
            if (colon == std::string::npos)
                return out;
            out += "::(\\(anonymous namespace\\)::)?";
            start = colon + 2;
        }
    }
    return "^(void )?" + literalPattern(stem) + (underscore ? "_" : "");
}

// What the built-in default rules say about the group's largest kernel, when a rule matches.
std::optional<RuleSet::Match> builtinOpinion(const Group& g) {
    static const RuleSet builtin = RuleSet::builtinDefault();
    if (g.kernels.empty())
        return std::nullopt;
    RuleSet::Match m = builtin.classify(g.kernels.front()->stats.name, ActivityKind::Kernel);
    if (m.rule < 0)
        return std::nullopt;
    return m;
}

}  // namespace

std::string kernelStem(const std::string& name) {
    return stemOf(name, 0);
}

std::string literalPattern(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (std::string_view(".[]{}()*+?^$|\\").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::vector<RuleSuggestion> suggestRules(const Breakdown& b) {
    std::map<std::string, Group> groups;
    for (const ClassifiedKernel& k : b.kernels) {
        if (k.rule >= 0 || k.stats.kind != ActivityKind::Kernel)
            continue;
        const std::string stem = kernelStem(k.stats.name);
        if (stem.empty())
            continue;
        Group& g = groups[stem];
        g.stem = stem;
        g.kernels.push_back(&k);
        g.totalUs += k.stats.totalUs;
        if (k.decision == Decision::Operator)
            g.operatorUs[k.decidingOperator] += k.stats.totalUs;
    }

    std::vector<RuleSuggestion> out;
    for (auto& [stem, g] : groups) {
        RuleSuggestion s;
        s.stem = stem;
        s.totalUs = g.totalUs;
        s.share = b.gpuTimeUs > 0 ? g.totalUs / b.gpuTimeUs : 0;
        for (const ClassifiedKernel* k : g.kernels)
            s.kernels.push_back(k->stats.name);
        s.rule.pattern = patternFor(stem, s.kernels);
        if (RuleSet::patternError(s.rule.pattern))
            continue;
        // The operator that decided the most time speaks for the group.
        const auto top =
            std::max_element(g.operatorUs.begin(), g.operatorUs.end(),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
        if (top != g.operatorUs.end()) {
            const OperatorVerdict v = operatorVerdict(top->first);
            s.rule.category = v.category.value_or(Category::Addressable);
            s.rule.family = v.family.empty() ? "custom" : v.family;
            s.basis =
                "operator " + top->first + " says " + std::string(categoryKey(s.rule.category));
            if (g.operatorUs.size() > 1)
                s.basis += " (" + std::to_string(g.operatorUs.size()) + " operators launch it)";
        } else if (const auto builtin = builtinOpinion(g); builtin) {
            // The user's set knows nothing; Reach's own rules recognise the name's shape.
            s.rule.category = builtin->category;
            s.rule.family = builtin->family.empty() ? "custom" : builtin->family;
            s.basis = "Reach's built-in rule " + std::to_string(builtin->rule + 1) + " says " +
                      std::string(categoryKey(s.rule.category));
        } else {
            s.guessed = true;
            s.rule.category = Category::Addressable;
            s.rule.family = "custom";
            s.basis =
                "no operator with an opinion: guessed addressable (a kernel no library "
                "rule names is usually a custom one); check before accepting";
        }
        s.rule.note = "suggested by Reach for " + std::to_string(g.kernels.size()) +
                      " kernel(s) of '" + b.workload + "' that no rule matched; " + s.basis;

        RuleSet probe;
        probe.insertRule(0, s.rule);
        for (const ClassifiedKernel& k : b.kernels) {
            if (std::find(g.kernels.begin(), g.kernels.end(), &k) != g.kernels.end())
                continue;
            if (probe.classify(k.stats.name, k.stats.kind).rule == 0 &&
                k.category != s.rule.category) {
                ++s.changesOthers;
                s.changesOthersUs += k.stats.totalUs;
            }
        }
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& x, const auto& y) { return x.totalUs > y.totalUs; });
    return out;
}

RuleSet acceptSuggestions(const RuleSet& rules, const std::vector<RuleSuggestion>& accepted) {
    RuleSet out = rules;
    for (size_t i = 0; i < accepted.size(); ++i)
        out.insertRule(i, accepted[i].rule);
    if (!accepted.empty())
        out.setName(rules.name() + " + suggestions");
    return out;
}

}  // namespace reach
