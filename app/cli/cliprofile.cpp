// reach-cli profile [--steps N] [--warmup K] [--device cuda|cpu] [--out F.json.gz]
//                   [--project P.reach] [--timeout S] [--rules R.json] [--json]
//                   -- PYTHON SCRIPT ARGS...
// A workload recorded as the breakdown, headroom and extraction need it, and what the recording
// serves (core/capture/capture.h, docs/capture.md).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/base/textescape.h"
#include "core/capture/capture.h"
#include "core/store/projectstore.h"

namespace reach::cli {

namespace {

namespace fs = std::filesystem;

// SCRIPT-YYYYMMDD-HHMMSS.json.gz in the current folder: a new name for every recording.
std::string defaultTraceName(const std::string& script) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    ::localtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    return fs::path(script).stem().string() + "-" + stamp + ".json.gz";
}

std::string markerText(const Capture& c) {
    if (c.marker == "reach_step")
        return "steps marked by reach_step()";
    if (c.marker == "prof.step")
        return "steps marked by the workload's prof.step()";
    if (c.marker == "optimizer")
        return "steps are the optimizer's";
    return "no step marked";
}

int runProfile(const std::vector<std::string>& argvIn, CliIo& io) {
    std::vector<std::string> argv = argvIn;
    const std::vector<std::string> workload = takeAfterDashes(argv);
    const CliArgs args(
        argv, {{"--json"},
               {"--steps", "--warmup", "--device", "--out", "--project", "--timeout", "--rules"}});
    if (!args.positionals().empty())
        throw UsageError("profile takes its workload after --: -- PYTHON SCRIPT ARGS...");
    if (workload.size() < 2)
        throw UsageError("after --: the workload, PYTHON SCRIPT [ARGS...]");
    CaptureOptions options;
    options.workload = workload;
    options.device = args.value("--device").value_or("cuda");
    if (options.device != "cuda" && options.device != "cpu")
        throw UsageError("--device: expected cuda or cpu");
    if (options.device == "cpu" && args.value("--project"))
        throw UsageError(
            "--project with --device cpu: a CPU recording has no GPU time for a "
            "project to store (profile on a GPU, --device cuda)");
    if (auto v = args.integer("--steps", 1, 100000))
        options.steps = int(*v);
    if (auto v = args.integer("--warmup", 0, 100000))
        options.warmup = int(*v);
    if (auto v = args.number("--timeout", 1, 86400))
        options.timeoutSeconds = *v;
    options.out = args.value("--out").value_or(defaultTraceName(workload[1]));
    // The trace never overwrites what the command reads: the script, its arguments' files, the
    // project or the rules.
    std::vector<std::string> read(workload.begin() + 1, workload.end());
    if (auto p = args.value("--project"))
        read.push_back(*p);
    if (auto p = args.value("--rules"))
        read.push_back(*p);
    for (const std::string& r : read)
        if (std::error_code ec; fs::exists(r, ec) && fs::equivalent(r, options.out, ec))
            throw InputError(options.out, "",
                             "a trace file that is not one of the inputs (" + r + ")");
    const RuleSet rules = args.value("--rules") ? RuleSet::fromFile(*args.value("--rules"))
                                                : RuleSet::builtinDefault();
    const bool json = args.flag("--json");
    auto progress = [&](const std::string& line) {
        io.err << "reach-cli profile: " << escapeControls(line) << "\n" << std::flush;
    };
    Capture capture;
    try {
        capture = captureWorkload(options, progress);
    } catch (const CaptureFailed& e) {
        io.err << "reach-cli profile: " << escapeControls(e.what()) << "\n";
        return kExitDataSaysNo;
    }
    // A GPU recording is read once: reviewed, and the same reading imported into --project.
    std::vector<Workload> recorded;
    if (capture.device != "cpu") {
        progress("reading " + capture.trace);
        recorded = readProfiles({capture.trace});
    }
    const CaptureReview review =
        reviewCapture(capture, recorded.empty() ? nullptr : &recorded.front(), rules);

    nlohmann::json project = nullptr;
    if (auto p = args.value("--project")) {
        ProjectStore store = ProjectStore::open(*p);
        const ProjectStore::ImportOnce once = store.importWorkloadOnce(recorded.front());
        project = {{"path", store.path()}, {"workload_id", once.id}, {"existed", once.existed}};
    }

    if (json) {
        nlohmann::json doc = captureJson(capture, review);
        doc["project"] = project;
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    std::error_code ec;
    const auto bytes = fs::file_size(capture.trace, ec);
    io.out << "profiled "
           << (capture.profiled == "whole" ? std::string("the whole run")
                                           : std::to_string(capture.profiledSteps) + " step(s)")
           << " of " << workload[1] << " (" << markerText(capture) << "; " << options.warmup
           << " warm-up) on " << capture.device << ": " << capture.trace << " ("
           << (ec ? std::string("?") : std::to_string(bytes / 1024) + " KiB") << ")\n";
    io.out << "  recording   " << capture.operatorCalls << " ATen operator calls, "
           << capture.shapedCalls << " with their input shapes\n";
    if (review.breakdown) {
        const Breakdown& b = *review.breakdown;
        io.out << "  GPU time    " << duration(b.gpuTimeUs) << " on " << b.device << ": ";
        bool first = true;
        for (Category c : kCategories) {
            io.out << (first ? "" : ", ") << categoryLabel(c) << " " << percent(b.share(c), 1);
            first = false;
        }
        io.out << "\n";
    }
    if (review.extraction) {
        const Extraction& e = *review.extraction;
        io.out << "  extraction  would cover " << percent(e.coveredShare(), 1)
               << " of the addressable time in " << e.problems.size()
               << " problem(s): reach-cli extract " << capture.trace << " --out DIR\n";
    }
    for (const std::string& a : review.advice)
        io.out << "  note        " << escapeControls(a) << "\n";
    if (!project.is_null())
        io.out << (project["existed"].get<bool>() ? "already in " : "imported into ")
               << project["path"].get<std::string>() << " as #"
               << project["workload_id"].get<int64_t>() << "\n";
    return kExitOk;
}

}  // namespace

CliCommand profileCommand() {
    return {"profile", "record a workload's trace as extraction needs it, and say what it serves",
            "profile [--steps N] [--warmup K] [--device cuda|cpu] [--out F.json.gz]\n"
            "        [--project P.reach] [--timeout S] [--rules R.json] [--json]\n"
            "        -- PYTHON SCRIPT [ARGS...]\n"
            "  Runs SCRIPT under the PyTorch profiler with shapes recorded (CPU and CUDA\n"
            "  activities). Steps are marked by reach_step() (from reach_integrate.steps), the\n"
            "  script's own prof.step(), else its optimizer's steps; after K warm-up steps\n"
            "  (default 2) N steps are profiled (default 5); a script that marks none is\n"
            "  profiled whole. The trace is written gzip-compressed (default\n"
            "  SCRIPT-DATE-TIME.json.gz here), added to --project, and the breakdown and what\n"
            "  extraction would cover are printed, with what to change when the recording\n"
            "  cannot serve extraction (docs/capture.md). Exit 1 when the workload fails.",
            runProfile};
}

}  // namespace reach::cli
