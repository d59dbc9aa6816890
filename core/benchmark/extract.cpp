#include "core/benchmark/extract.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/benchmark/problemsource.h"

namespace reach {

namespace {

// The floating dtype that holds most of the profile's shaped kernel time: a model's working
// precision, which a tensor list of unrecorded dtype most likely shares.
std::string dominantFloatDtype(const std::vector<SignatureGroup>& groups) {
    std::map<std::string, double> us;
    for (const SignatureGroup& g : groups) {
        const nlohmann::json sig = tryParseJson(g.signature).value_or(nlohmann::json());
        std::set<std::string> seen;
        for (const CallArgument& a : decodeArguments(sig, nullptr))
            if (a.kind == CallArgument::Kind::Tensor &&
                (a.dtype.rfind("float", 0) == 0 || a.dtype == "bfloat16"))
                seen.insert(a.dtype);
        for (const std::string& d : seen)
            us[d] += g.us;
    }
    std::string best = "float32";
    double most = 0;
    for (const auto& [d, t] : us)
        if (t > most)
            best = d, most = t;
    return best;
}

// The dtype a tensor list's elements most likely have (the profiler records none): the other
// tensors of the call, else what the kernels' names say (a dtype, or the element size of
// ATen's OpaqueType<N> copies, as cat's), else the profile's working precision.
std::string fallbackDtype(const SignatureGroup& g, const std::vector<CallArgument>& args,
                          const std::string& dominant) {
    for (const CallArgument& a : args) {
        if (a.kind == CallArgument::Kind::Tensor && !a.dtype.empty() &&
            a.dtype.rfind("float", 0) == 0)
            return a.dtype;
        if (a.kind == CallArgument::Kind::Tensor && a.dtype == "bfloat16")
            return a.dtype;
    }
    const bool dominantHalf = dominant == "bfloat16" || dominant == "float16";
    for (const ExtractedKernel& k : g.kernels) {
        const std::string& n = k.name;
        if (n.find("BFloat16") != std::string::npos || n.find("bf16") != std::string::npos ||
            n.find("bfloat16") != std::string::npos)
            return "bfloat16";
        if (n.find("Half") != std::string::npos || n.find("fp16") != std::string::npos)
            return "float16";
        if (n.find("double") != std::string::npos)
            return "float64";
        if (n.find("OpaqueType<2u>") != std::string::npos)
            return dominantHalf ? dominant : "bfloat16";
        if (n.find("OpaqueType<4u>") != std::string::npos)
            return "float32";
        if (n.find("OpaqueType<8u>") != std::string::npos)
            return "float64";
        if (n.find("OpaqueType<1u>") != std::string::npos)
            return "uint8";
    }
    return dominant;
}

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * share);
    return buf;
}

std::string micros(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f us", us);
    return buf;
}

std::string categoryName(const std::optional<Category>& c) {
    return c ? std::string(categoryKey(*c)) : std::string("all");
}

nlohmann::json groupJson(const SignatureGroup& g, double gpuUs) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const ExtractedKernel& k : g.kernels)
        kernels.push_back({{"name", k.name},
                           {"calls", k.calls},
                           {"gpu_us", k.us},
                           {"share_of_workload", gpuUs > 0 ? k.us / gpuUs : 0.0}});
    nlohmann::json sig = tryParseJson(g.signature).value_or(nlohmann::json(g.signature));
    return {{"operator", g.op},
            {"signature", sig},
            {"operator_calls", g.opCalls},
            {"gpu_us", g.us},
            {"share_of_workload", gpuUs > 0 ? g.us / gpuUs : 0.0},
            {"kernels", kernels}};
}

}  // namespace

SignatureGroups groupBySignature(const Breakdown& b, const std::optional<Category>& category) {
    SignatureGroups out;
    // (operator, signature) -> its kernels' time.
    std::map<std::pair<std::string, std::string>, SignatureGroup> groups;
    for (const ClassifiedKernel& k : b.kernels) {
        if (category && k.category != *category)
            continue;
        out.categoryUs += k.stats.totalUs;
        for (const ShapedCall& c : k.stats.shapedCalls) {
            SignatureGroup& g = groups[{c.op, c.signature}];
            g.op = c.op;
            g.signature = c.signature;
            g.us += c.totalUs;
            g.opCalls = std::max(g.opCalls, c.opCalls);
            g.kernels.push_back({k.stats.name, c.calls, c.totalUs});
            out.shapedUs += c.totalUs;
        }
    }
    for (auto& [key, g] : groups) {
        std::sort(g.kernels.begin(), g.kernels.end(), [](const auto& a, const auto& b) {
            return a.us != b.us ? a.us > b.us : a.name < b.name;
        });
        out.hottest.push_back(std::move(g));
    }
    std::sort(out.hottest.begin(), out.hottest.end(), [](const auto& a, const auto& b) {
        return a.us != b.us ? a.us > b.us
                            : std::tie(a.op, a.signature) < std::tie(b.op, b.signature);
    });
    return out;
}

Extraction extractBenchmark(const Breakdown& b, const ExtractOptions& options) {
    Extraction e;
    e.profile = b.source.empty() ? b.workload : b.source;
    e.profileSha256 = b.sourceHash;
    e.device = b.device;
    e.category = options.category;
    e.cover = options.cover;
    e.gpuUs = b.gpuTimeUs;

    SignatureGroups grouped = groupBySignature(b, options.category);
    e.categoryUs = grouped.categoryUs;
    e.shapedUs = grouped.shapedUs;
    std::vector<SignatureGroup>& hottest = grouped.hottest;
    const std::string dominant = dominantFloatDtype(hottest);

    const double target = options.cover * e.categoryUs;
    for (SignatureGroup& g : hottest) {
        if (e.coveredUs >= target && !e.problems.empty()) {
            e.notReached.push_back(std::move(g));
            continue;
        }
        if (e.problems.size() >= kMaxExtractedProblems) {
            e.capped = true;
            e.notReached.push_back(std::move(g));
            continue;
        }
        std::string why;
        const nlohmann::json sig = tryParseJson(g.signature).value_or(nlohmann::json());
        const std::vector<CallArgument> args = decodeArguments(sig, &why);
        std::vector<std::string> header = {
            // The file's name, not the path it was read from: a problem's bytes (what verified
            // results are matched by) must not depend on where the profile lay.
            "profile: " + e.profile.substr(e.profile.find_last_of('/') + 1),
            "profile sha256: " + e.profileSha256,
            "operator: " + g.op + ", " + std::to_string(g.opCalls) + " calls",
            // Two signatures never share bytes (a benchmark's reader refuses one problem's
            // bytes under two names: they would match one verified run twice).
            "signature sha256: " + Sha256::hex(g.op + "\n" + g.signature),
            "its kernels: " + micros(g.us) + ", " + percent(e.gpuUs > 0 ? g.us / e.gpuUs : 0) +
                " of the workload's GPU time, " +
                percent(e.categoryUs > 0 ? g.us / e.categoryUs : 0) + " of its " +
                categoryName(e.category) + " time",
        };
        for (size_t i = 0; i < g.kernels.size() && i < kMaxHeaderKernels; ++i)
            header.push_back("  kernel (" + std::to_string(g.kernels[i].calls) + " calls, " +
                             micros(g.kernels[i].us) + "): " + g.kernels[i].name);
        if (g.kernels.size() > kMaxHeaderKernels)
            header.push_back("  and " + std::to_string(g.kernels.size() - kMaxHeaderKernels) +
                             " more kernels (benchmark.json lists them all)");
        ProblemSource src = problemSource(g.op, sig, header, fallbackDtype(g, args, dominant));
        if (!src.ok) {
            e.skipped.push_back({std::move(g), src.why});
            continue;
        }
        std::string name = g.op.substr(g.op.find("::") + 2);
        name = name.substr(0, name.find('.'));
        char index[8];
        std::snprintf(index, sizeof index, "%03zu", e.problems.size() + 1);
        ExtractedProblem p;
        p.file = std::string(index) + "_" + name + "_" +
                 Sha256::hex(g.op + "\n" + g.signature).substr(0, 8) + ".py";
        p.source = std::move(src.source);
        p.assumptions = std::move(src.assumptions);
        e.coveredUs += g.us;
        p.group = std::move(g);
        e.problems.push_back(std::move(p));
    }
    return e;
}

std::vector<SkippedOperator> skippedByOperator(const Extraction& e) {
    std::vector<SkippedOperator> out;
    for (const SkippedSignature& s : e.skipped) {
        auto it = std::find_if(out.begin(), out.end(), [&](const SkippedOperator& o) {
            return o.op == s.group.op && o.why == s.why;
        });
        if (it == out.end())
            it = out.insert(out.end(), SkippedOperator{s.group.op, s.why, 0, 0});
        it->us += s.group.us;
        ++it->signatures;
    }
    std::stable_sort(
        out.begin(), out.end(),
        [](const SkippedOperator& a, const SkippedOperator& b) { return a.us > b.us; });
    return out;
}

nlohmann::json extractionJson(const Extraction& e) {
    nlohmann::json problems = nlohmann::json::array(), skipped = nlohmann::json::array();
    for (const ExtractedProblem& p : e.problems) {
        nlohmann::json j = groupJson(p.group, e.gpuUs);
        j["file"] = p.file;
        j["share_of_category"] = e.categoryUs > 0 ? p.group.us / e.categoryUs : 0.0;
        j["assumptions"] = p.assumptions;
        // Whether the problem's own run launches the trace's kernels is measured on a GPU.
        j["launches_same_kernels"] = nullptr;
        problems.push_back(std::move(j));
    }
    for (const SkippedSignature& s : e.skipped) {
        nlohmann::json j = groupJson(s.group, e.gpuUs);
        j["why"] = s.why;
        skipped.push_back(std::move(j));
    }
    const std::string cat = categoryName(e.category);
    nlohmann::json j = {
        {"profile", e.profile},
        {"profile_sha256", e.profileSha256},
        {"device", e.device},
        {"category", cat},
        {"cover_asked", e.cover},
        {"gpu_us", e.gpuUs},
        {"category_us", e.categoryUs},
        {"shaped_share_of_category", e.categoryUs > 0 ? e.shapedUs / e.categoryUs : 0.0},
        {"covered_share_of_category", e.coveredShare()},
        {"problems", problems},
        {"skipped", skipped},
        {"signatures_past_the_cover", e.notReached.size()},
        {"problems_capped_at", e.capped ? nlohmann::json(kMaxExtractedProblems) : nlohmann::json()},
    };
    if (e.category == Category::Addressable)
        j["covered_share_of_addressable"] = e.coveredShare();
    return j;
}

}  // namespace reach
