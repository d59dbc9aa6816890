// reach-cli rules [--rules R.json] [--json]
// reach-cli rules check FILE... [--rules R.json] [--min-classified S] [--json]
#include <nlohmann/json.hpp>

#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clirulessuggest.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/kernelname.h"
#include "core/base/category.h"
#include "core/base/textescape.h"

namespace reach::cli {

namespace {

// The study classified >= 99.5% of GPU time in every profile (DOMAIN.md).
constexpr double kDefaultMinClassified = 0.995;
constexpr size_t kUnmatchedShown = 15;

int listRules(const CliArgs& args, CliIo& io) {
    if (!args.positionals().empty()) {
        throw UsageError("unexpected argument '" + args.positionals().front() +
                         "' (did you mean `rules check FILE...`?)");
    }
    const RuleSet rules = loadRules(args.value("--rules"));
    if (args.flag("--json")) {
        nlohmann::json doc;
        doc["name"] = rules.name();
        doc["hash"] = rules.hash();
        doc["rules"] = nlohmann::json::array();
        for (const Rule& r : rules.rules()) {
            doc["rules"].push_back({{"pattern", r.pattern},
                                    {"category", std::string(categoryKey(r.category))},
                                    {"family", r.family},
                                    {"note", r.note}});
        }
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    io.out << "rule set '" << rules.name() << "' (" << rules.hash().substr(0, 12) << "), "
           << rules.rules().size() << " rules, first match wins\n\n";
    TextTable t({"#", "category", "family", "pattern"});
    for (size_t i = 0; i < rules.rules().size(); ++i) {
        const Rule& r = rules.rules()[i];
        // Numbered from 1, as the GUI, the JSON's "rule N" and the docs count.
        t.addRow({std::to_string(i + 1), std::string(categoryLabel(r.category)),
                  r.family.empty() ? "-" : r.family, r.pattern});
    }
    for (size_t col = 1; col < 4; ++col)
        t.alignLeft(col);
    io.out << t.render();
    return kExitOk;
}

int checkRules(const CliArgs& args, CliIo& io) {
    const std::vector<std::string> files(args.positionals().begin() + 1, args.positionals().end());
    if (files.empty() && !args.value("--project")) {
        throw UsageError("rules check: give profile files and/or --project P.reach");
    }
    const double minClassified =
        args.number("--min-classified", 0.0, 1.0).value_or(kDefaultMinClassified);
    const RuleSet rules = loadRules(args.value("--rules"));
    std::vector<Workload> workloads;
    if (auto project = args.value("--project")) {
        // The rule set under test is the one given (or the default), not the project's own.
        for (const ProjectWorkload& w : openInputs({*project}, rules).workloads) {
            if (w.workload)
                workloads.push_back(*w.workload);
        }
    }
    for (Workload& w : readProfiles(files))
        workloads.push_back(std::move(w));

    bool allPass = true;
    nlohmann::json doc;
    doc["workloads"] = nlohmann::json::array();
    for (const Workload& w : workloads) {
        const Breakdown b = computeBreakdown(w, rules);
        const bool pass = b.classifiedShare >= minClassified;
        allPass = allPass && pass;
        nlohmann::json unmatched = nlohmann::json::array();
        nlohmann::json disagree = nlohmann::json::array();
        for (const ClassifiedKernel& k : b.kernels) {
            if (k.rule >= 0)
                continue;
            // No name rule: the launching operator or the activity kind may still decide.
            unmatched.push_back({{"name", k.stats.name},
                                 {"display_name", kernelDisplayName(k.stats.name)},
                                 {"decided_by", k.decidedBy()},
                                 {"category", std::string(categoryKey(k.category))},
                                 {"total_us", k.stats.totalUs},
                                 {"share", b.gpuTimeUs > 0 ? k.stats.totalUs / b.gpuTimeUs : 0},
                                 {"calls", k.stats.calls}});
        }
        for (const OpDisagreement& d : b.disagreements()) {
            disagree.push_back({{"name", d.kernel},
                                {"display_name", kernelDisplayName(d.kernel)},
                                {"operator", d.op},
                                {"rule_category", std::string(categoryKey(d.nameCategory))},
                                {"operator_category", std::string(categoryKey(d.opCategory))},
                                {"total_us", d.us},
                                {"share", b.gpuTimeUs > 0 ? d.us / b.gpuTimeUs : 0}});
        }
        doc["workloads"].push_back(
            {{"name", b.workload},
             {"source", b.source},
             {"classified_share", b.classifiedShare},
             {"operator_agreement",
              b.hasOpSplit ? nlohmann::json(b.opAgreement()) : nlohmann::json(nullptr)},
             {"pass", pass},
             {"unmatched", unmatched},
             {"disagreements", disagree}});
    }
    doc["rules"] = {{"name", rules.name()}, {"hash", rules.hash()}};
    doc["min_classified"] = minClassified;
    doc["pass"] = allPass;

    if (args.flag("--json")) {
        io.out << reach::dumpJson(doc) << "\n";
    } else {
        for (const auto& w : doc["workloads"]) {
            io.out << w["name"].get<std::string>() << ": classified "
                   << percent(w["classified_share"].get<double>(), 2)
                   << (w["pass"].get<bool>() ? " (ok)" : " (BELOW " + percent(minClassified) + ")")
                   << "\n";
            size_t shown = 0;
            for (const auto& k : w["unmatched"]) {
                if (shown++ == kUnmatchedShown) {
                    io.out << "    ... " << w["unmatched"].size() - kUnmatchedShown << " more\n";
                    break;
                }
                const std::string by = k["decided_by"].get<std::string>();
                io.out << "    no rule  " << percent(k["share"].get<double>(), 3) << "  "
                       << kernelDisplayName(k["name"].get<std::string>(), 80) << "  ("
                       << (by == "unclassified" ? by
                                                : by + " says " + k["category"].get<std::string>())
                       << ")\n";
            }
            shown = 0;
            for (const auto& k : w["disagreements"]) {
                if (shown++ == kUnmatchedShown) {
                    io.out << "    ... " << w["disagreements"].size() - kUnmatchedShown
                           << " more disagreements\n";
                    break;
                }
                io.out << "    rule says " << k["rule_category"].get<std::string>() << ", operator "
                       << k["operator"].get<std::string>() << " says "
                       << k["operator_category"].get<std::string>() << "  "
                       << percent(k["share"].get<double>(), 3) << "  "
                       << kernelDisplayName(k["name"].get<std::string>(), 70) << "\n";
            }
        }
        io.out << "rules: " << rules.name() << " (" << rules.hash().substr(0, 12) << ")\n";
    }
    return allPass ? kExitOk : kExitDataSaysNo;
}

int runRules(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(
        argv, {{"--json"}, {"--rules", "--project", "--min-classified", "--write", "--accept"}});
    if (!args.positionals().empty() && args.positionals().front() == "check") {
        return checkRules(args, io);
    }
    if (!args.positionals().empty() && args.positionals().front() == "suggest") {
        return suggestRulesCommand(args, io);
    }
    return listRules(args, io);
}

}  // namespace

CliCommand rulesCommand() {
    return {"rules", "list a rule set, or check which kernels it leaves unclassified",
            "rules [--rules R.json] [--json]\n"
            "       reach-cli rules check FILE... [--project P.reach] [--rules R.json]\n"
            "                 [--min-classified S] [--json]\n"
            "       reach-cli rules suggest FILE... [--rules R.json] [--json]\n"
            "                 [--write OUT.json [--accept 1,3]]\n"
            "  check   lists unmatched kernels and where name rules and operators disagree;\n"
            "          exit 1 when a workload classifies less than S of its GPU time "
            "(default 0.995)\n"
            "  suggest proposes a name rule per name stem for kernels no rule matches, with\n"
            "          the category their launching operator gives (or a marked guess);\n"
            "          --write writes the rule set with the accepted rules first (all, or the\n"
            "          numbers given to --accept)",
            runRules};
}

}  // namespace reach::cli
