// reach-cli rules suggest FILE... [--rules R.json] [--json] [--write OUT.json [--accept 1,3]]
#include "clirulessuggest.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <ostream>
#include <set>

#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/kernelname.h"
#include "core/analysis/rulesuggest.h"
#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/base/outputguard.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"

namespace reach::cli {

namespace {

constexpr size_t kKernelsShown = 3;

// "1,3,4" -> {1,3,4}; numbers are the suggestions' positions as printed (1-based).
std::set<size_t> parseAccept(const std::string& text, size_t count) {
    std::set<size_t> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        size_t used = 0;
        long n = 0;
        try {
            n = std::stol(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || item.empty() || n < 1 || size_t(n) > count) {
            throw UsageError("--accept: '" + item + "' is not a suggestion number (1.." +
                             std::to_string(count) + ")");
        }
        out.insert(size_t(n));
        start = end + 1;
    }
    return out;
}

}  // namespace

int suggestRulesCommand(const CliArgs& args, CliIo& io) {
    const std::vector<std::string> files(args.positionals().begin() + 1, args.positionals().end());
    if (files.empty())
        throw UsageError("rules suggest: give one or more profile files");
    if (args.value("--accept") && !args.value("--write"))
        throw UsageError("rules suggest: --accept needs --write OUT.json");
    // --write is a new rule file: never a profile read, nor the rule file given (issue 37).
    if (const auto out = args.value("--write")) {
        OutputGuard inputs;
        inputs.addInputs(files);
        inputs.addInput(args.value("--rules").value_or(""));
        inputs.checkNamed(*out);
    }
    const RuleSet rules = loadRules(args.value("--rules"));

    struct Entry {
        std::string workload;
        RuleSuggestion suggestion;
    };
    std::vector<Entry> all;
    nlohmann::json doc;
    doc["workloads"] = nlohmann::json::array();
    for (const Workload& w : readProfiles(files)) {
        const Breakdown b = computeBreakdown(w, rules);
        nlohmann::json list = nlohmann::json::array();
        for (RuleSuggestion& s : suggestRules(b)) {
            list.push_back({{"number", all.size() + 1},
                            {"pattern", s.rule.pattern},
                            {"category", std::string(categoryKey(s.rule.category))},
                            {"family", s.rule.family},
                            {"note", s.rule.note},
                            {"basis", s.basis},
                            {"guessed", s.guessed},
                            {"stem", s.stem},
                            {"kernels", s.kernels},
                            {"total_us", s.totalUs},
                            {"share", s.share},
                            {"changes_others",
                             {{"kernels", s.changesOthers}, {"total_us", s.changesOthersUs}}}});
            all.push_back({b.workload, std::move(s)});
        }
        doc["workloads"].push_back({{"name", b.workload},
                                    {"classified_share", b.classifiedShare},
                                    {"no_rule_share", 1.0 - b.decisionShare(Decision::Rule) -
                                                          b.decisionShare(Decision::Kind)},
                                    {"suggestions", list}});
    }
    doc["rules"] = {{"name", rules.name()}, {"hash", rules.hash()}};

    // Accepting writes a new rule file: the accepted rules first, the given set after them.
    std::optional<RuleSet> written;
    if (const auto out = args.value("--write")) {
        std::set<size_t> pick;
        if (const auto accept = args.value("--accept"))
            pick = parseAccept(*accept, all.size());
        std::vector<RuleSuggestion> accepted;
        for (size_t i = 0; i < all.size(); ++i) {
            if (pick.empty() || pick.count(i + 1))
                accepted.push_back(all[i].suggestion);
        }
        written = acceptSuggestions(rules, accepted);
        writeWholeFile(*out, written->toJson(), "a writable file for the rule set");
        doc["written"] = {{"path", *out},
                          {"accepted", accepted.size()},
                          {"name", written->name()},
                          {"hash", written->hash()}};
    }

    if (args.flag("--json")) {
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    if (all.empty())
        io.out << "every kernel is matched by a name rule: nothing to suggest\n";
    std::string current;
    for (size_t i = 0; i < all.size(); ++i) {
        const Entry& e = all[i];
        const RuleSuggestion& s = e.suggestion;
        if (e.workload != current) {
            io.out << (current.empty() ? "" : "\n") << e.workload << "\n";
            current = e.workload;
        }
        io.out << "  " << i + 1 << ". " << percent(s.share, 3) << "  /" << s.rule.pattern << "/ -> "
               << categoryKey(s.rule.category) << " (" << s.rule.family << ")\n";
        io.out << "     " << s.basis << "\n";
        for (size_t k = 0; k < s.kernels.size() && k < kKernelsShown; ++k)
            io.out << "     " << kernelDisplayName(s.kernels[k], 90) << "\n";
        if (s.kernels.size() > kKernelsShown)
            io.out << "     ... " << s.kernels.size() - kKernelsShown << " more kernels\n";
        if (s.changesOthers > 0) {
            io.out << "     also re-classifies " << s.changesOthers << " other kernel(s), "
                   << duration(s.changesOthersUs) << "\n";
        }
    }
    if (written) {
        io.out << "\nwrote " << *args.value("--write") << ": '" << written->name() << "' ("
               << written->hash().substr(0, 12) << ")\n";
    } else if (!all.empty()) {
        io.out << "\naccept with --write OUT.json [--accept 1,2,...]; then --rules OUT.json\n";
    }
    return kExitOk;
}

}  // namespace reach::cli
