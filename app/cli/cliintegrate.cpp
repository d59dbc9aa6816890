// reach-cli integrate --benchmark DIR --records R [--records R2 ...] [--steps N] [--warmup K]
//                     [--wall-steps M] [--runs R] [--control] [--all-passing]
//                     [--device cuda|cpu] [--trust DIR ...] [--out DIR] [--timeout S]
//                     [--rules R.json] [--sandbox] [--host-path native|python] [--json]
//                     -- PYTHON WORKLOAD.py ARGS...
// The verified winners put back into the workload, and the measured gain beside the exact
// projection (core/ownbenchmark/integration.h, docs/integration.md).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "clitext.h"
#include "core/base/evidence.h"
#include "core/base/textescape.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/ownbenchmark/integration.h"
#include "core/ownbenchmark/integrationevidence.h"
#include "core/ownbenchmark/verifiedruns.h"

namespace reach::cli {

namespace {

namespace fs = std::filesystem;

std::string gainText(const MeasuredGain& g) {
    return percent(g.median, 2) + " (" + percent(g.low, 2) + " to " + percent(g.high, 2) +
           " over " + std::to_string(g.perPair.size()) + " pairs)";
}

// The run's options, after the required arguments are checked (in this order).
IntegrationOptions integrationOptionsFrom(const CliArgs& args,
                                          const std::vector<std::string>& records,
                                          const std::vector<std::string>& workload) {
    if (!args.positionals().empty())
        throw UsageError("integrate takes its workload after --: -- PYTHON WORKLOAD.py ARGS...");
    const auto benchmarkDir = args.value("--benchmark");
    if (!benchmarkDir)
        throw UsageError("--benchmark DIR: a folder written by reach-cli extract");
    if (records.empty())
        throw UsageError("--records R: reach-verify output, a folder of it or a .reach project");
    if (workload.size() < 2)
        throw UsageError("after --: the workload, PYTHON WORKLOAD.py [ARGS...]");
    IntegrationOptions options;
    options.workload = workload;
    options.device = args.value("--device").value_or("cuda");
    if (options.device != "cuda" && options.device != "cpu")
        throw UsageError("--device: expected cuda or cpu");
    if (auto v = args.integer("--steps", 1, 100000))
        options.steps = int(*v);
    if (auto v = args.integer("--warmup", 1, 100000))
        options.warmup = int(*v);
    if (auto v = args.integer("--wall-steps", 0, 100000))
        options.wallSteps = int(*v);
    if (auto v = args.integer("--runs", 1, 1000))
        options.runs = int(*v);
    if (auto v = args.number("--timeout", 1, 86400))
        options.timeoutSeconds = *v;
    options.control = args.flag("--control");
    options.hostPath = args.value("--host-path").value_or("native");
    if (options.hostPath != "native" && options.hostPath != "python")
        throw UsageError("--host-path: expected native or python");
    options.outDir = args.value("--out").value_or("reach-integrate");
    options.rulesPath = args.value("--rules").value_or("");
    // What the command reads is never a file it writes (--out beside the records, say).
    for (const std::string& r : records)
        options.inputs.addInput(r);
    options.inputs.addInput(*benchmarkDir);
    options.inputs.addInput(options.rulesPath);
    for (const std::string& w : workload)
        if (std::error_code ec; fs::is_regular_file(w, ec))
            options.inputs.addInput(w);
    return options;
}

// The winners to install: the small, hostile inputs first (the folder and the records); then
// every winner without a pass signed here is verified again.
IntegrationPlan planVerifiedWinners(const CliArgs& args, const IntegrationOptions& options,
                                    const std::vector<std::string>& records,
                                    const std::vector<std::string>& trusted,
                                    const IntegrationProgress& progress) {
    const std::string& python = options.workload[0];
    // A signed pass stands in for a new verification only on the GPU and stack the workload's
    // interpreter runs here: asked once, when a signed pass is there to compare.
    std::optional<std::optional<MachineStack>> machine;
    auto measuredHere = [&](const VerifiedRun& run) {
        if (!machine) {
            std::string why;
            machine = probeMachineStack(python, options.device, "", &why);
            if (!*machine)
                progress("every winner is verified again: " + why);
        }
        return *machine && measuredOn(run, **machine);
    };
    IntegrationPlan plan =
        planIntegration(readBenchmarkFolder(*args.value("--benchmark")), readVerifiedRuns(records),
                        trusted, args.flag("--all-passing"), measuredHere);
    ReverifyOptions reverify;
    reverify.python = python;
    reverify.device = options.device;
    reverify.outDir = options.outDir;
    reverify.sandbox = args.flag("--sandbox");
    reverify.allPassing = args.flag("--all-passing");
    reverify.inputs = options.inputs;
    reverifyWinners(plan, reverify, progress);
    return plan;
}

// Measured here: signed, so that a reader tells it from a document written by hand.
void printIntegrationJson(const IntegrationResult& r, CliIo& io) {
    nlohmann::json doc = integrationJson(r);
    if (const std::string why = reach::signEvidence(doc); !why.empty())
        io.err << "reach-cli integrate: the document is not signed, readers will take it as "
                  "a claim: "
               << reach::escapeControls(why) << "\n";
    io.out << reach::dumpJson(doc) << "\n";
}

// What was installed (and how it was vouched for), what was left out, and how it was run.
void printInstalledWinners(const IntegrationResult& r, const IntegrationOptions& options,
                           CliIo& io) {
    int signedHere = 0;
    for (const IntegrationWinner& w : r.plan.winners)
        signedHere += w.evidence == kSignedPassHere;
    io.out << r.plan.winners.size() << " verified candidate(s) of "
           << r.plan.benchmark.problems.size() << " problem(s) installed (" << signedHere
           << " on a pass signed here, " << r.plan.winners.size() - signedHere
           << " verified again now); " << options.runs
           << (options.control ? " triple(s) of runs (with the control), " : " pair(s) of runs, ")
           << options.warmup << " warm-up, " << options.wallSteps
           << " wall-clock steps without the profiler and " << options.steps
           << " profiled steps each\n";
    for (const IntegrationWinner& w : r.plan.winners)
        io.out << "  " << reach::escapeControls(w.problem) << "  " << w.op << "  sigma "
               << std::to_string(w.sigma).substr(0, 5) << "  " << w.evidence << "  "
               << reach::escapeControls(w.candidatePath) << "\n";
    for (const auto& [file, why] : r.plan.left)
        io.out << "  left out " << reach::escapeControls(file) << ": " << reach::escapeControls(why)
               << "\n";
}

// The measured savings (GPU time, wall clock, the overrides alone) beside the exact projection.
void printMeasuredSavings(const IntegrationResult& r, const IntegrationOptions& options,
                          CliIo& io) {
    if (r.substituted.gpuGain)
        io.out << "GPU time per step: " << duration(*r.asIs.gpuUsPerStep) << " as is, "
               << duration(*r.substituted.gpuUsPerStep) << " with the winners; measured saving "
               << gainText(*r.substituted.gpuGain) << "\n";
    const std::string where = options.wallSteps > 0 ? " (no profiler)" : " (profiled steps)";
    if (r.substituted.wallGain)
        io.out << "wall clock per step" << where << ": " << duration(r.asIs.wallUsPerStep)
               << " as is, " << duration(r.substituted.wallUsPerStep)
               << " with the winners; measured saving " << gainText(*r.substituted.wallGain)
               << "\n";
    if (r.hooks && r.hooks->wallGain) {
        io.out << "the overrides alone (every call falling through): wall clock per step" << where
               << " " << duration(r.hooks->wallUsPerStep) << ", saving "
               << gainText(*r.hooks->wallGain);
        if (r.hooks->gpuGain)
            io.out << "; GPU time " << duration(*r.hooks->gpuUsPerStep) << ", saving "
                   << gainText(*r.hooks->gpuGain);
        io.out << "\n";
    }
    if (r.projection)
        io.out << "exact projection for the same winners: " << percent(r.projection->savedShare, 2)
               << " of GPU time (" << percent(r.projection->savedInterval.lo, 2) << " to "
               << percent(r.projection->savedInterval.hi, 2)
               << "); the study's A*w*(1-1/m): " << percent(r.projection->study.savedShare, 2)
               << "\n";
}

int runIntegrate(const std::vector<std::string>& argvIn, CliIo& io) {
    std::vector<std::string> argv = argvIn;
    const std::vector<std::string> workload = takeAfterDashes(argv);
    const std::vector<std::string> records = takeRepeated(argv, "--records");
    const std::vector<std::string> trusted = takeRepeated(argv, "--trust");
    const CliArgs args(argv, {{"--json", "--all-passing", "--control", "--sandbox"},
                              {"--benchmark", "--steps", "--warmup", "--wall-steps", "--runs",
                               "--device", "--out", "--timeout", "--rules", "--host-path"}});
    const IntegrationOptions options = integrationOptionsFrom(args, records, workload);
    const bool json = args.flag("--json");
    const IntegrationProgress progress = [&](const std::string& s) {
        if (!json)
            io.err << "reach-cli integrate: " << reach::escapeControls(s) << "\n";
    };
    // Then the workload runs, as it is and with the winners installed.
    IntegrationPlan plan = planVerifiedWinners(args, options, records, trusted, progress);
    std::optional<IntegrationResult> result;
    try {
        result = runIntegration(std::move(plan), options, progress);
    } catch (const IntegrationFailed& e) {
        // The workload failed, or a substituted call disagreed: the data says no.
        io.err << "reach-cli integrate: " << reach::escapeControls(e.what()) << "\n";
        return kExitDataSaysNo;
    }
    if (json) {
        printIntegrationJson(*result, io);
        return kExitOk;
    }
    printInstalledWinners(*result, options, io);
    printMeasuredSavings(*result, options, io);
    for (const std::string& w : result->warnings)
        io.out << "warning: " << reach::escapeControls(w) << "\n";
    io.out << "traces and reports in " << options.outDir << "\n";
    return kExitOk;
}

}  // namespace

CliCommand integrateCommand() {
    return {
        "integrate", "the verified winners put back into the workload: measured against projected",
        "integrate --benchmark DIR --records R [--records R2 ...] [--steps N] [--warmup K]\n"
        "          [--wall-steps M] [--runs R] [--control] [--all-passing] [--device cuda|cpu]\n"
        "          [--trust DIR ...] [--out DIR] [--timeout S] [--rules R.json] [--sandbox]\n"
        "          [--host-path native|python] [--json] -- PYTHON WORKLOAD.py ARGS...\n"
        "  runs the workload (code: run because you name it) R times as it is and R times\n"
        "  with each verified winner of DIR installed in place of its operator, for the\n"
        "  signature it was verified at; the workload marks its steps with reach_step()\n"
        "  (from reach_integrate) or torch.profiler's prof.step()\n"
        "  --records R  reach-verify output of DIR's problems; a winner's candidate must lie\n"
        "               beside R, in DIR or in a --trust folder, with the verified bytes;\n"
        "               a winner without a pass Reach signed here (this GPU and stack) is\n"
        "               verified again now, with a fresh seed, and installed only if it passes\n"
        "  --sandbox    verify again under bubblewrap (docs/security.md)\n"
        "  --warmup K   steps first, every substituted call checked (default 3)\n"
        "  --wall-steps M  then M steps timed without the profiler: the wall clock\n"
        "               (default 10; 0: read it on the profiled steps)\n"
        "  --steps N    then N profiled steps: the GPU time (default 10)\n"
        "  --runs R     pairs of runs (default 5): the spread of the measured gain\n"
        "  --control    a third run per pair: the overrides installed, every call falling\n"
        "               through; what the dispatch through them costs, apart from the\n"
        "               candidates\n"
        "  --all-passing  install passing candidates not faster than eager too\n"
        "  --host-path native  the overrides in C++, built once against the workload's\n"
        "               PyTorch, a pass-through load_inline candidate called from there\n"
        "               (the default); python: session 16's Python overrides\n"
        "  --out DIR    plan, traces and reports (default ./reach-integrate)\n"
        "  --timeout S  each run's limit (default 900)",
        runIntegrate};
}

}  // namespace reach::cli
