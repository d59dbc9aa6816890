// reach-cli project [FILE...] [--project P.reach] [--addressable A] --win-rate W --median M
// [--json]; reach-cli project RANK... --ranks ... (a distributed run on its critical rank);
// reach-cli project PROFILE --benchmark DIR --records R... (cliprojectexact.cpp)
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "cliprojectexact.h"
#include "clitext.h"
#include "core/analysis/projection.h"
#include "core/base/textescape.h"
#include "core/distributed/runread.h"

namespace reach::cli {

namespace {

struct Input {
    std::string name;
    double addressable = 0;
    std::optional<WallClock> wall;  // measured rows; published and manual rows have no span
    bool published = false;
};

// A distributed run's two rows (docs/distributed.md): its critical rank's addressable share with
// its waiting taken out (what a faster kernel there buys: the run waits for that rank), and as
// read, waiting counted, beside it.
std::vector<Input> runInputs(const CliArgs& args, const RuleSet& rules) {
    const std::vector<std::string> files = runFiles(args.positionals());
    if (files.size() < 2)
        throw UsageError("--ranks: the traces of one run, two or more (files or a folder)");
    const DistributedRun run = readRun(files, rules);
    const std::string rank =
        "critical rank " + std::to_string(run.run.ranks[run.run.critical].rank);
    return {{rank + ", waiting taken out", run.addressableShareWaitingOut, {}, false},
            {rank + ", waiting counted", run.addressableShare, {}, false}};
}

// One workload's row of `project --json`.
nlohmann::json projectionRow(const Projection& p, bool published) {
    nlohmann::json row = {{"name", p.name},
                          {"addressable_share", p.addressableShare},
                          {"win_rate", p.winRate},
                          {"median_speedup", p.medianSpeedup},
                          {"saved_share", p.savedShare},
                          {"end_to_end_speedup", p.endToEndSpeedup}};
    // The second basis: the profiled wall clock, idle gaps unchanged. Rows without a span
    // (published, --addressable, a distributed run) say why instead of a number.
    if (const auto wall = p.wallSavedShare()) {
        row["busy_share_of_span"] = p.wall->busyShare();
        row["saved_share_of_wall_clock"] = *wall;
        row["end_to_end_speedup_wall"] = *p.wallEndToEndSpeedup();
        const std::string warning = wallClockWarning(*p.wall);
        row["warning"] = warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning);
    } else {
        row["busy_share_of_span"] = nullptr;
        row["saved_share_of_wall_clock"] = nullptr;
        row["end_to_end_speedup_wall"] = nullptr;
        row["warning"] = published ? "published row: GPU-time shares only, no profiled span"
                                   : "no profiled span: GPU-time basis only";
    }
    return row;
}

int runProject(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> rest = argv;
    const std::vector<std::string> records = takeRepeated(rest, "--records");
    const CliArgs args(rest, {{"--json", "--ranks"},
                              {"--win-rate", "--median", "--rules", "--project", "--addressable",
                               "--name", "--benchmark", "--resamples"}});
    // The exact projection: one profile, its own benchmark and the verified results for it.
    if (args.value("--benchmark") || !records.empty())
        return runExactProjection(args, records, io);
    if (args.value("--resamples"))
        throw UsageError("--resamples goes with --benchmark (the exact projection's bootstrap)");
    const auto addressable = args.number("--addressable", 0.0, 1.0);
    auto winRate = args.number("--win-rate", 0.0, 1.0);
    auto median = args.number("--median", 1e-9, 1e9);

    // Profiles, folders, a .reach project, published tables; nothing (and no --addressable): the
    // bundled sample, whose study table carries its projection.
    std::vector<Input> inputs;
    std::optional<PublishedProjection> study;
    std::optional<RuleSet> rules;
    const bool openAnything =
        !args.positionals().empty() || args.value("--project") || !addressable;
    if (args.flag("--ranks")) {
        if (args.value("--project") || addressable)
            throw UsageError("--ranks reads the traces of one run: no --project or --addressable");
        rules = loadRules(args.value("--rules"));
        inputs = runInputs(args, *rules);
    } else if (openAnything) {
        const Project project =
            openCliInputs(args.positionals(), args.value("--project"), args.value("--rules"));
        for (const std::string& w : project.warnings)
            io.err << w << "\n";
        bool measured = false;
        for (const ProjectWorkload& w : project.workloads) {
            inputs.push_back({w.name, w.addressableShare(), w.wallClock(), w.published});
            measured = measured || !w.published;
        }
        if (measured)
            rules = project.rules;
        if (!project.studies.empty())
            study = project.studies.front();
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
    if (addressable)
        inputs.push_back({args.value("--name").value_or("manual"), *addressable, {}, false});

    std::vector<Projection> projections;
    for (const Input& in : inputs) {
        projections.push_back(projectSummary(in.name, in.addressable, *winRate, *median, in.wall));
    }

    if (args.flag("--json")) {
        nlohmann::json doc;
        doc["workloads"] = nlohmann::json::array();
        for (size_t i = 0; i < projections.size(); ++i)
            doc["workloads"].push_back(projectionRow(projections[i], inputs[i].published));
        doc["assumptions"] = projectionAssumptions();
        doc["rules"] = rules ? nlohmann::json{{"name", rules->name()}, {"hash", rules->hash()}}
                             : nlohmann::json(nullptr);
        doc["study"] = study ? nlohmann::json(study->source) : nlohmann::json(nullptr);
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }

    io.out << "projected gain = A * w * (1 - 1/m), w = " << fixed(*winRate, 3)
           << " (win rate), m = " << fixed(*median, 3) << "x (median speedup of the winners)\n\n";
    TextTable t(
        {"workload", "addressable A", "saved (GPU)", "end-to-end", "saved (wall)", "GPU busy"});
    std::vector<std::string> warnings;
    for (const Projection& p : projections) {
        const auto wall = p.wallSavedShare();
        t.addRow({p.name, percent(p.addressableShare), percent(p.savedShare, 2),
                  fixed(p.endToEndSpeedup, 4) + "x", wall ? percent(*wall, 2) : "no span",
                  p.wall ? percent(p.wall->busyShare()) : "-"});
        if (p.wall && p.wall->mostlyIdle())
            warnings.push_back(p.name + ": " + wallClockWarning(*p.wall));
    }
    io.out << t.render();
    io.out << "\n  saved (GPU): share of GPU time; saved (wall): the same time over the profiled "
              "span,\n  idle gaps unchanged; published rows have no span\n";
    for (const std::string& w : warnings)
        io.out << "  warning: " << w << "\n";
    if (study)
        io.out << "\nstudy: " << study->source << "\n";
    if (rules)
        io.out << "rules: " << rules->name() << " (" << rules->hash().substr(0, 12) << ")\n";
    io.out << "\nassumptions: " << projectionAssumptions() << "\n";
    return kExitOk;
}

}  // namespace

CliCommand projectCommand() {
    return {
        "project",
        "projected end-to-end gain per workload (Amdahl: saved = A*w*(1-1/m), docs/cli.md)",
        "project [INPUT...] [--project P.reach] [--addressable A [--name N]] --win-rate W "
        "--median M [--rules R.json] [--json]\n"
        "project RANK0 RANK1 ... --ranks --win-rate W --median M [--rules R.json] [--json]\n"
        "  INPUT          a profile (its addressable share comes from its breakdown), a folder\n"
        "                 of profiles, a .reach project, or a published study table\n"
        "                 (datasets/paper/table3.json: its shares; its win rate and median\n"
        "                 are used unless --win-rate/--median are given); none and no\n"
        "                 --addressable: the bundled sample project\n"
        "  --addressable  an addressable share given directly, in [0,1]\n"
        "  --ranks        the traces (files or a folder) of one distributed run: projected on\n"
        "                 its critical rank, with its waiting taken out and as read\n"
        "                 (docs/distributed.md)\n"
        "  --win-rate W   share of problems with a verified faster kernel, in [0,1]\n"
        "  --median M     median speedup of the winners (e.g. 1.552)\n"
        "  --json         {\"workloads\":[{\"name\",\"addressable_share\",\"win_rate\",\n"
        "                 \"median_speedup\",\"saved_share\",\"end_to_end_speedup\",\n"
        "                 \"busy_share_of_span\",\"saved_share_of_wall_clock\",\n"
        "                 \"end_to_end_speedup_wall\",\"warning\"}],\n"
        "                 \"assumptions\",\"rules\",\"study\"}\n"
        "project PROFILE --benchmark DIR --records R [--records R2 ...] [--resamples B]\n"
        "        [--rules R.json] [--json]\n"
        "  the exact projection: saved = sum_i s_i * (1 - 1/sigma_i) over the problems of\n"
        "  DIR (written by `reach-cli extract PROFILE --out DIR`), each with its best verified\n"
        "  result (verdict pass; sigma = eager median / candidate median), matched by the\n"
        "  problem file's SHA-256; a bootstrap interval from the timing spreads (B = 2000\n"
        "  resamples); beside it the study's A*w*(1-1/m) and the speed-of-light bound\n"
        "  --records R    reach-verify output (a file, or a folder of .json/.jsonl files) or a\n"
        "                 .reach project's stored verifications; repeatable\n"
        "  --json         one document (docs/cli.md, \"project --benchmark\")",
        runProject};
}

}  // namespace reach::cli
