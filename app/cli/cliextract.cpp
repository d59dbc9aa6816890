// reach-cli extract PROFILE --out DIR [--cover F] [--category addressable|all] [--rules R]
//                   [--json]
// The workload's own benchmark (core/benchmark, docs/benchmark.md): one KernelBench-format
// problem per hot operator call signature, and DIR/benchmark.json.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/textescape.h"
#include "core/benchmark/extract.h"
#include "core/benchmark/problemsource.h"
#include "core/ownbenchmark/benchmarkcheck.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/project/project.h"

namespace reach::cli {

namespace {

namespace fs = std::filesystem;

// --check DIR: every problem run and profiled once; which launch the trace's kernels.
int runCheck(const CliArgs& args, CliIo& io) {
    if (!args.positionals().empty() || args.value("--out") || args.value("--cover") ||
        args.value("--category") || args.value("--rules"))
        throw UsageError(
            "extract --check DIR takes no profile, --out, --cover, --category or "
            "--rules: it checks a folder extract wrote");
    BenchmarkCheckOptions options;
    options.device = args.value("--device").value_or("cuda");
    if (options.device != "cuda" && options.device != "cpu")
        throw UsageError("--device: expected cuda or cpu");
    options.python = args.value("--python").value_or("");
    if (auto t = args.number("--timeout", 1, 86400))
        options.timeoutPerProblem = *t;
    if (auto j = args.number("--jobs", 1, 64))
        options.jobs = int(*j);
    const BenchmarkCheck check = checkBenchmark(*args.value("--check"), options);
    if (args.flag("--json")) {
        nlohmann::json doc = benchmarkCheckSummary(check);
        nlohmann::json problems = nlohmann::json::array();
        for (const auto& [file, m] : check.problems) {
            nlohmann::json j =
                options.device == "cuda"
                    ? kernelMatchJson(m)
                    : nlohmann::json{{"ran", m.ran},
                                     {"error", m.ran ? nlohmann::json() : nlohmann::json(m.error)}};
            j["file"] = file;
            problems.push_back(std::move(j));
        }
        doc["per_problem"] = std::move(problems);
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    const std::string where =
        check.runs.deviceName.empty() ? check.runs.device : check.runs.deviceName;
    io.out << check.ran << " of " << check.problems.size() << " problem(s) ran on " << where
           << " (torch " << check.runs.torch << ")";
    if (options.device == "cuda")
        io.out << "; " << percent(check.matchedShare())
               << " of the covered time is in kernels they launch by the same name; "
               << percent(check.launchedUs > 0 ? check.extraUs / check.launchedUs : 0)
               << " of their own GPU time in kernels the trace's calls did not launch";
    io.out << "\n";
    // Kernel names and errors come from the problems' runs: printed with their controls escaped.
    for (const auto& [file, m] : check.problems) {
        io.out << "  " << reach::escapeControls(file) << "  ";
        if (!m.ran) {
            io.out << "did not run: " << reach::escapeControls(m.error) << "\n";
            continue;
        }
        io.out << (options.device == "cuda" ? percent(m.matchedShare()) + " matched" : "ran");
        for (const std::string& k : m.missing)
            io.out << "\n      not launched: " << reach::escapeControls(k);
        for (const std::string& k : m.extra)
            io.out << "\n      also launched: " << reach::escapeControls(k);
        io.out << "\n";
    }
    io.out << "written into " << check.dir << "/benchmark.json ("
           << (options.device == "cuda" ? "launches_same_kernels, check" : "runs_on_cpu, check_cpu")
           << ")\n";
    return kExitOk;
}

int runExtract(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(argv, {{"--json"},
                              {"--out", "--cover", "--category", "--rules", "--check", "--device",
                               "--python", "--timeout", "--jobs"}});
    if (args.value("--check"))
        return runCheck(args, io);
    if (args.value("--device") || args.value("--python") || args.value("--timeout") ||
        args.value("--jobs"))
        throw UsageError("--device, --python, --timeout and --jobs go with --check DIR");
    if (args.positionals().size() != 1)
        throw UsageError("extract takes one profile (recorded with record_shapes=True)");
    const auto out = args.value("--out");
    if (!out)
        throw UsageError("--out DIR: where the problems and benchmark.json go");
    ExtractOptions options;
    if (auto c = args.number("--cover", 0.01, 1.0))
        options.cover = *c;
    const std::string category = args.value("--category").value_or("addressable");
    if (category == "all") {
        options.category = std::nullopt;
    } else if (category == "addressable") {
        options.category = Category::Addressable;
    } else {
        throw UsageError("--category: expected addressable or all");
    }

    const Project project = openCliInputs(args.positionals(), std::nullopt, args.value("--rules"));
    const ProjectWorkload* row = nullptr;
    for (const ProjectWorkload& w : project.workloads)
        if (w.breakdown && !row)
            row = &w;
    if (!row)
        throw InputError(args.positionals()[0], "", "a profile (a published table has no kernels)");
    const Extraction e = extractBenchmark(*row->breakdown, options);
    if (e.shapedUs <= 0)
        throw InputError(args.positionals()[0], "",
                         "a profile recorded with shapes (record_shapes=True): no operator call "
                         "of its kernels has recorded arguments");

    const fs::path dir(*out);
    const nlohmann::json doc =
        writeBenchmarkFolder(e, dir.string(), fs::path(args.positionals()[0]).filename().string(),
                             project.rules.name(), project.rules.hash());

    if (args.flag("--json")) {
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    const std::string what = options.category ? "addressable" : "GPU";
    const std::string shaped = percent(e.categoryUs > 0 ? e.shapedUs / e.categoryUs : 0);
    if (e.problems.empty())
        io.out << "wrote no problem to " << dir.string() << ": no operator call of the " << what
               << " time could be made one (" << shaped
               << " of that time is under an operator call with recorded shapes; why each was "
                  "skipped below)\n";
    else
        io.out << "wrote " << e.problems.size() << " problem(s) to " << dir.string()
               << ", covering " << percent(e.coveredShare()) << " of the " << what << " time ("
               << shaped << " of it under an operator call with recorded shapes)\n";
    if (row->breakdown->twinLinkedUs > 0)
        io.out << "  " << percent(row->breakdown->twinLinkedShare())
               << " of GPU time was linked to its operator through a twin (launches the trace "
                  "missed); "
               << percent(1 - row->breakdown->linkedShare()) << " stays unlinked\n";
    for (const ExtractedProblem& p : e.problems) {
        // The --precision its verify runs need: reach-verify casts every floating input to it.
        const std::string precision =
            callPrecision(p.group.op, tryParseJson(p.group.signature).value_or(nlohmann::json()));
        io.out << "  " << p.file << "  "
               << percent(e.categoryUs > 0 ? p.group.us / e.categoryUs : 0) << "  " << p.group.op
               << ", " << p.group.kernels.size() << " kernel(s)"
               << (precision.empty() ? ""
                   : precision == "mixed" || precision == "fp64"
                       ? ", " + precision + ": no --precision verifies it"
                       : ", verify with --precision " + precision)
               << "\n";
    }
    for (const SkippedOperator& s : skippedByOperator(e))
        io.out << "  skipped " << s.op << " ("
               << percent(e.categoryUs > 0 ? s.us / e.categoryUs : 0)
               << (s.signatures > 1 ? ", " + std::to_string(s.signatures) + " signatures" : "")
               << "): " << s.why << "\n";
    if (e.capped)
        io.out << "  stopped at " << kMaxExtractedProblems
               << " problems (the hottest): " << e.notReached.size()
               << " colder signature(s) not written\n";
    io.out << "benchmark.json beside them; whether each problem launches the trace's kernels: "
              "reach-cli extract --check "
           << dir.string() << " on a GPU machine (docs/benchmark.md)\n";
    return kExitOk;
}

}  // namespace

CliCommand extractCommand() {
    return {"extract", "the workload's own benchmark: a KernelBench problem per hot operator call",
            "extract PROFILE --out DIR [--cover F] [--category addressable|all] [--rules R.json]\n"
            "        [--json]\n"
            "  PROFILE     a Kineto trace recorded with record_shapes=True\n"
            "  --out DIR   a new or empty folder: one problem file per operator call signature\n"
            "              (Model, get_inputs, get_init_inputs), hottest first, and\n"
            "              benchmark.json (each problem's operator, signature, kernels, share)\n"
            "  --cover F   stop once the problems cover F of the category's time (default 0.9)\n"
            "  --category  addressable (default) or all kernels\n"
            "  --json      benchmark.json on stdout as well\n"
            "extract --check DIR [--device cuda|cpu] [--python P] [--timeout S] [--jobs N]\n"
            "        [--json]\n"
            "  runs every problem of DIR (code: run because you ask) and profiles one call of\n"
            "  each; writes into DIR/benchmark.json whether it launches the trace's kernels\n"
            "  (matched by name) and the matched share of the covered time\n"
            "  --device    cuda (default; the check) or cpu (the problems run, nothing to match)\n"
            "  --timeout S each problem's limit (default 120)\n"
            "  --jobs N    problems profiled at once (default 1)",
            runExtract};
}

}  // namespace reach::cli
