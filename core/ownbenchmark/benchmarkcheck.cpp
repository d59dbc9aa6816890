#include "core/ownbenchmark/benchmarkcheck.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/verify/childprocess.h"
#include "core/verify/kbverify.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The whole run's limit: every problem at its own timeout, one after another, plus the
// interpreter's start. The script kills a problem past its timeout itself; this is the net.
double overallTimeout(size_t problems, const BenchmarkCheckOptions& o) {
    const int jobs = std::max(1, o.jobs);
    return 60 + o.timeoutPerProblem * double((problems + size_t(jobs) - 1) / size_t(jobs)) * 1.2;
}

std::string lastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r'))
        t.pop_back();
    const size_t nl = t.find_last_of('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

BenchmarkCheck checkBenchmark(const std::string& dir, const BenchmarkCheckOptions& options) {
    const BenchmarkFolder folder = readBenchmarkFolder(dir);
    const fs::path file = fs::path(dir) / "benchmark.json";
    const std::string expected = "a benchmark.json written by reach-cli extract";
    json doc = parseJson(readJsonFile(file.string(), expected), file.string(), expected);

    BenchmarkCheck check;
    check.dir = dir;
    const std::string python = findPython(options.python);
    const std::string script = options.script.empty()
                                   ? findResourceDir() + "/python/reach_problem_kernels.py"
                                   : options.script;
    std::vector<std::string> argv = {python,      script,
                                     "--device",  options.device,
                                     "--warmup",  std::to_string(std::max(0, options.warmup)),
                                     "--timeout", std::to_string(options.timeoutPerProblem),
                                     "--jobs",    std::to_string(std::max(1, options.jobs)),
                                     "--"};
    for (const BenchmarkProblem& p : folder.problems)
        argv.push_back((fs::path(dir) / p.file).string());
    const ChildResult child = runChild(argv, overallTimeout(folder.problems.size(), options));
    if (!child.started)
        throw InputError(python, "", "an interpreter that starts (" + child.error + ")");
    if (child.timedOut)
        throw InputError(script, "", "an answer within the check's time limit (killed)");
    const std::optional<json> answer = tryParseJson(child.out);
    if (child.exitCode != 0 || !answer)
        throw InputError(script, "",
                         "one JSON answer from " + python + " (exit " +
                             std::to_string(child.exitCode) + ": " +
                             escapeControls(lastLine(child.err)) + ")");
    check.runs = readLaunchReport(*answer, script);

    const bool gpu = options.device == "cuda";
    std::map<std::string, const ProblemLaunches*> byFile;
    for (const ProblemLaunches& r : check.runs.problems)
        byFile.emplace(r.file, &r);
    const ProblemLaunches notRun{"", false, "the check did not report this problem", 0, {}};
    json& problems = doc["problems"];
    for (size_t i = 0; i < folder.problems.size(); ++i) {
        const BenchmarkProblem& p = folder.problems[i];
        std::vector<TraceKernel> trace;
        for (const BenchmarkKernel& k : p.kernels)
            trace.push_back({k.name, k.gpuUs});
        auto it = byFile.find(p.file);
        const KernelMatch m = matchKernels(trace, it == byFile.end() ? notRun : *it->second);
        check.traceUs += m.traceUs;
        check.matchedUs += m.matchedUs;
        check.launchedUs += m.launchedUs;
        check.extraUs += m.extraUs;
        (m.ran ? check.ran : check.failed) += 1;
        // On a CPU nothing is launched to match: the run says only whether the problem runs.
        json j = gpu ? kernelMatchJson(m)
                     : json{{"ran", m.ran}, {"error", m.ran ? json() : json(m.error)}};
        j["problem_sha256"] = p.sha256;  // the bytes that ran: an edit makes the answer stale
        problems[i][gpu ? "launches_same_kernels" : "runs_on_cpu"] = j;
        check.problems.emplace_back(p.file, m);
    }
    doc[gpu ? "check" : "check_cpu"] = benchmarkCheckSummary(check);
    // Measured here: signed, so a reader tells this check from one written by hand (issue 37).
    check.unsignedWhy = signEvidence(doc);

    // Replaced whole or not at all (docs/benchmark.md): a half-written benchmark.json would
    // lose the extraction.
    writeWholeFile(file.string(), dumpJson(doc, 2) + "\n", "a file Reach can replace");
    return check;
}

json benchmarkCheckSummary(const BenchmarkCheck& c) {
    if (c.runs.device != "cuda")
        return {{"device", c.runs.device},
                {"torch", c.runs.torch},
                {"problems", c.problems.size()},
                {"ran", c.ran},
                {"failed", c.failed}};
    return {{"device", c.runs.device},
            {"device_name", c.runs.deviceName.empty() ? json(nullptr) : json(c.runs.deviceName)},
            {"torch", c.runs.torch},
            {"problems", c.problems.size()},
            {"ran", c.ran},
            {"failed", c.failed},
            {"trace_us", c.traceUs},
            {"matched_us", c.matchedUs},
            {"matched_share_of_covered", c.matchedShare()},
            {"launched_us", c.launchedUs},
            {"extra_us", c.extraUs}};
}

}  // namespace reach
