// reach-cli project [FILE...] [--project P.reach] [--addressable A] --win-rate W --median M
// [--json]
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>

#include "cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"
#include "core/analysis/publishedstudy.h"

namespace reach::cli {

namespace {

// Published-study tables are small JSON objects with a "workloads" list and no "traceEvents";
// anything else is handed to the profile reader, which reports its own errors.
constexpr std::uintmax_t kStudyMaxBytes = 4u << 20;

bool looksLikePublishedStudy(const std::string& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size == 0 || size > kStudyMaxBytes)
        return false;
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
        static_cast<unsigned char>(text[1]) == 0x8b) {
        return false;  // gzip: a trace
    }
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    return doc.is_object() && doc.contains("workloads") && !doc.contains("traceEvents");
}

struct Input {
    std::string name;
    double addressable = 0;
};

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

int runProject(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(
        argv, {{"--json"},
               {"--win-rate", "--median", "--rules", "--project", "--addressable", "--name"}});
    const auto project = args.value("--project");
    const auto addressable = args.number("--addressable", 0.0, 1.0);
    if (args.positionals().empty() && !project && !addressable) {
        throw UsageError(
            "no input: give profiles, a published study table, --project P.reach or "
            "--addressable A");
    }
    auto winRate = args.number("--win-rate", 0.0, 1.0);
    auto median = args.number("--median", 1e-9, 1e9);

    std::vector<Input> inputs;
    std::optional<PublishedStudy> study;
    std::vector<std::string> profiles;
    for (const std::string& path : args.positionals()) {
        requireReadableFile(path, "a profile or a published study table (.json)");
        if (!looksLikePublishedStudy(path)) {
            profiles.push_back(path);
            continue;
        }
        PublishedStudy s = readPublishedStudy(path);
        for (const PublishedWorkload& w : s.workloads)
            inputs.push_back({w.name, w.addressable});
        if (!study)
            study = std::move(s);
    }
    // A study table carries the win rate and median it was projected with; explicit flags win.
    if (study) {
        if (!winRate)
            winRate = study->winRate;
        if (!median)
            median = study->medianSpeedup;
    }
    if (!winRate || !median) {
        throw UsageError("--win-rate W and --median M are required (W in [0,1], M > 0)");
    }

    std::optional<RuleSet> rules;
    if (project || !profiles.empty()) {
        rules = loadRules(args.value("--rules"));
        std::vector<Workload> workloads;
        if (project)
            workloads = projectWorkloads(*project);
        for (Workload& w : readProfiles(profiles))
            workloads.push_back(std::move(w));
        if (project)
            rememberRules(*project, *rules);
        for (const Workload& w : workloads) {
            const Breakdown b = computeBreakdown(w, *rules);
            inputs.push_back({b.workload, b.share(Category::Addressable)});
        }
    }
    if (addressable)
        inputs.push_back({args.value("--name").value_or("manual"), *addressable});

    std::vector<Projection> projections;
    for (const Input& in : inputs) {
        projections.push_back(projectSummary(in.name, in.addressable, *winRate, *median));
    }

    if (args.flag("--json")) {
        nlohmann::json doc;
        doc["workloads"] = nlohmann::json::array();
        for (const Projection& p : projections) {
            doc["workloads"].push_back({{"name", p.name},
                                        {"addressable_share", p.addressableShare},
                                        {"win_rate", p.winRate},
                                        {"median_speedup", p.medianSpeedup},
                                        {"saved_share", p.savedShare},
                                        {"end_to_end_speedup", p.endToEndSpeedup}});
        }
        doc["assumptions"] = projectionAssumptions();
        doc["rules"] = rules ? nlohmann::json{{"name", rules->name()}, {"hash", rules->hash()}}
                             : nlohmann::json(nullptr);
        doc["study"] = study ? nlohmann::json(study->source) : nlohmann::json(nullptr);
        io.out << doc.dump(2) << "\n";
        return kExitOk;
    }

    io.out << "projected gain = A * w * (1 - 1/m), w = " << fixed(*winRate, 3)
           << " (win rate), m = " << fixed(*median, 3) << "x (median speedup of the winners)\n\n";
    TextTable t({"workload", "addressable A", "saved", "end-to-end"});
    for (const Projection& p : projections) {
        t.addRow({p.name, percent(p.addressableShare), percent(p.savedShare, 2),
                  fixed(p.endToEndSpeedup, 4) + "x"});
    }
    io.out << t.render();
    if (study)
        io.out << "\nstudy: " << study->source << "\n";
    if (rules)
        io.out << "rules: " << rules->name() << " (" << rules->hash().substr(0, 12) << ")\n";
    io.out << "\nassumptions: " << projectionAssumptions() << "\n";
    return kExitOk;
}

}  // namespace

CliCommand projectCommand() {
    return {"project", "projected end-to-end gain per workload (Amdahl, DOMAIN.md)",
            "project [FILE...] [--project P.reach] [--addressable A [--name N]] --win-rate W "
            "--median M [--rules R.json] [--json]\n"
            "  FILE           a profile (its addressable share comes from its breakdown) or a\n"
            "                 published study table (datasets/paper/table3.json: its shares; its\n"
            "                 win rate and median are used unless --win-rate/--median are given)\n"
            "  --addressable  an addressable share given directly, in [0,1]\n"
            "  --win-rate W   share of problems with a verified faster kernel, in [0,1]\n"
            "  --median M     median speedup of the winners (e.g. 1.552)\n"
            "  --json         {\"workloads\":[{\"name\",\"addressable_share\",\"win_rate\",\n"
            "                 \"median_speedup\",\"saved_share\",\"end_to_end_speedup\"}],\n"
            "                 \"assumptions\",\"rules\",\"study\"}",
            runProject};
}

}  // namespace reach::cli
