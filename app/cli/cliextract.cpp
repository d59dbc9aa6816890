// reach-cli extract PROFILE --out DIR [--cover F] [--category addressable|all] [--rules R]
//                   [--json]
// The workload's own benchmark (core/benchmark, docs/benchmark.md): one KernelBench-format
// problem per hot operator call signature, and DIR/benchmark.json.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"
#include "core/benchmark/extract.h"
#include "core/project/project.h"

namespace reach::cli {

namespace {

namespace fs = std::filesystem;

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * share);
    return buf;
}

// The files are written beside each other in a fresh folder, each complete or not at all: a
// problem file half written would be code that fails in a way no one asked for.
void writeFile(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + ".part";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out)
            throw InputError(path.string(), "", "a file Reach can write");
    }
    fs::rename(tmp, path);
}

int runExtract(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(argv, {{"--json"}, {"--out", "--cover", "--category", "--rules"}});
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
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
        throw InputError(dir.string(), "", "an empty or new folder (it holds files already)");
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError(dir.string(), "", "a folder Reach can create (" + ec.message() + ")");
    for (const ExtractedProblem& p : e.problems)
        writeFile(dir / p.file, p.source);
    nlohmann::json doc = extractionJson(e);
    doc["profile"] = fs::path(args.positionals()[0]).filename().string();
    doc["rules"] = {{"name", project.rules.name()}, {"hash", project.rules.hash()}};
    writeFile(dir / "benchmark.json", reach::dumpJson(doc, 2) + "\n");

    if (args.flag("--json")) {
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    const std::string what = options.category ? "addressable" : "GPU";
    io.out << "wrote " << e.problems.size() << " problem(s) to " << dir.string() << ", covering "
           << percent(e.coveredShare()) << " of the " << what << " time ("
           << percent(e.categoryUs > 0 ? e.shapedUs / e.categoryUs : 0)
           << " of it under an operator call with recorded shapes)\n";
    for (const ExtractedProblem& p : e.problems)
        io.out << "  " << p.file << "  "
               << percent(e.categoryUs > 0 ? p.group.us / e.categoryUs : 0) << "  " << p.group.op
               << ", " << p.group.kernels.size() << " kernel(s)\n";
    for (const SkippedSignature& s : e.skipped)
        io.out << "  skipped " << s.group.op << " ("
               << percent(e.categoryUs > 0 ? s.group.us / e.categoryUs : 0) << "): " << s.why
               << "\n";
    io.out << "benchmark.json beside them; whether each problem launches the trace's kernels is "
              "measured on a GPU (docs/benchmark.md)\n";
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
            "  --json      benchmark.json on stdout as well",
            runExtract};
}

}  // namespace reach::cli
