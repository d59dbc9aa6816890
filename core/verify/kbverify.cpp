#include "core/verify/kbverify.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"
#include "core/verify/childprocess.h"
#include "core/verify/judgedocument.h"
#include "core/verify/kbcache.h"
#include "core/verify/kbreport.h"
#include "core/verify/processguard.h"
#include "core/verify/queueclock.h"
#include "core/verify/workerserver.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string tail(std::string s, size_t n = 4000) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// What a worker that did not print its answer means: the part's own verdict.
json failedPart(const WorkerOutcome& w, const char* mode) {
    json j = {{"mode", mode}};
    if (!w.started && w.startError.rfind("not run", 0) == 0) {
        j["error"] = w.startError;
    } else if (!w.started) {
        j["verdict"] = verdict::kError;
        j["error"] = "cannot start the worker: " + w.startError;
    } else if (w.gpuBusy) {
        // Waiting is never the candidate's fault (issue 38): an error, not a verdict.
        j["verdict"] = verdict::kError;
        j["error"] = "error: the GPU was busy for " + std::to_string(int(w.queueSeconds)) +
                     " s (other jobs held it; the limit of the wait is --queue-timeout)";
    } else if (w.timedOut) {
        j["verdict"] = verdict::kTimeout;
        j["error"] =
            "timeout: the worker was killed after " +
            std::to_string(int(w.seconds - w.queueSeconds)) +
            " s of its own work (a hang, or a job slower than the timeout)" +
            (w.queueSeconds >= 1 ? "; it also waited " + std::to_string(int(w.queueSeconds)) +
                                       " s for the GPU, not counted"
                                 : std::string());
    } else if (w.termSignal) {
        j["verdict"] = verdict::kCrashed;
        j["error"] = "crashed: the worker died of signal " + std::to_string(w.termSignal);
    } else {
        j["verdict"] = verdict::kCrashed;
        j["error"] =
            "crashed: the worker exited " + std::to_string(w.exitCode) + " without its JSON answer";
    }
    j["log"] = tail(w.err);
    return j;
}

// A warm worker server (workerserver.h) when the owner of this verifier passed it a connection
// (adoptWorkerServerConnection, at start-up), and the job is not sandboxed: a server outside
// bubblewrap would run the candidate outside it.
std::optional<ChildResult> runInServer(const KernelBenchJob& job,
                                       const std::vector<std::string>& args,
                                       const std::vector<std::string>& env,
                                       const ChildQueue& queue) {
    if (!hasWorkerServerConnection() || std::getenv("REACH_SANDBOXED") || job.sandbox)
        return std::nullopt;
    std::string why;
    auto c = runInAdoptedWorkerServer(args, job.timeoutSeconds, env, &why, queue);
    if (!c)
        std::cerr << "reach-verify: " << why << "; starting the worker directly\n";
    return c;
}

WorkerOutcome runWorker(const KernelBenchJob& job, const std::vector<std::string>& args,
                        const std::vector<std::string>& extraReadOnly = {}) {
    std::vector<std::string> argv = {job.python, job.worker};
    argv.insert(argv.end(), args.begin(), args.end());
    // The job's waits for the GPU are reported in this file, and not counted as its work.
    const QueueFile queueFile = QueueFile::make();
    const ChildQueue queue{&queueFile, job.queueLimitSeconds};
    if (job.sandbox) {
        SandboxSpec spec = *job.sandbox;
        spec.command = argv;
        spec.readOnlyPaths.insert(spec.readOnlyPaths.end(), extraReadOnly.begin(),
                                  extraReadOnly.end());
        if (!queueFile.path().empty())
            spec.writablePaths.push_back(queueFile.path());  // the one file it reports in
        argv = sandboxArguments(spec);
    }
    // The worker's own output must not be buffered away when it dies.
    const std::vector<std::string> env = {"PYTHONUNBUFFERED=1"};
    std::optional<ChildResult> served = runInServer(job, args, env, queue);
    const ChildResult c =
        served ? std::move(*served) : runChild(argv, job.timeoutSeconds, env, {}, {}, queue);
    // Processes the job's candidate started and abandoned (re-parented here when the caller is
    // a subreaper) end with the job, sandboxed or not.
    if (job.killLeftovers)
        killLeftoverChildren();
    WorkerOutcome w;
    w.started = c.started;
    w.startError = c.error;
    w.timedOut = c.timedOut;
    w.gpuBusy = c.gpuBusy;
    w.queueSeconds = c.queueSeconds;
    w.exitCode = c.exitCode;
    w.termSignal = c.termSignal;
    w.err = c.err;
    w.seconds = c.seconds;
    if (!c.out.empty())
        // The worker runs the candidate's Python: its output is bounded like any stranger's.
        w.doc = tryParseJson(c.out).value_or(json(json::value_t::discarded));
    if (w.doc.is_discarded())
        w.doc = nullptr;
    // One object of the mode asked for, or nothing: whatever else is on stdout is not an answer.
    if (w.doc.is_object() && !args.empty() && !w.doc.contains("error") &&
        text(w.doc, "mode") != args.front()) {
        w.err += "\nreach-verify: the worker's stdout held a document that is not its answer";
        w.doc = nullptr;
    }
    return w;
}

// The worker said the input is bad (exit 2): reach-verify's own bad-input answer.
void throwIfBadInput(const WorkerOutcome& w, const KernelBenchJob& job) {
    if (!w.started || w.timedOut || w.termSignal || w.exitCode != 2)
        return;
    std::string line = w.doc.is_object() ? text(w.doc, "error") : std::string();
    if (line.empty())
        line = tail(w.err, 400);
    // The worker's line already names the file ("P.py: line 3: ..."): pass it on as it is.
    const size_t colon = line.find(": ");
    if (colon != std::string::npos && colon > 0 && line.find('\n') == std::string::npos)
        throw InputError(line.substr(0, colon), "", line.substr(colon + 2));
    throw InputError(job.problemFile, "kernelbench worker", line.empty() ? "valid input" : line);
}

// The entries of a job's scopes, written for the workers to read (0600, in a private folder),
// removed with the job.
class CacheInFile {
public:
    explicit CacheInFile(const KbResultCache& cache) {
        if (!cache.enabled())
            return;
        char tmpl[] = "/tmp/reach-cache-in-XXXXXX";
        if (!::mkdtemp(tmpl))
            return;
        m_dir = tmpl;
        const std::string path = m_dir + "/entries.json";
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << dumpJson(cache.entries(), -1);
        if (out)
            m_path = path;
    }
    ~CacheInFile() {
        std::error_code ec;
        if (!m_dir.empty())
            fs::remove_all(m_dir, ec);
    }
    CacheInFile(const CacheInFile&) = delete;
    CacheInFile& operator=(const CacheInFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_dir, m_path;
};

// What a sandboxed job may write: the candidate's own load_inline and Triton build folders
// (named by its bytes, as environment.extension_dir does), created here first; plus whatever
// the caller allowed (a batch's timing lock).
std::vector<std::string> sandboxBuildDirs(const KernelBenchJob& job) {
    std::vector<std::string> dirs = job.sandbox->writablePaths;
    std::string digest;
    try {
        digest = Sha256::hexOfFile(job.candidateFile).substr(0, 24);
    } catch (const std::exception&) {
        return dirs;
    }
    for (const char* kind : {"torch_extensions", "triton"}) {
        const std::string d = job.cacheDir + "/" + kind + "/" + digest;
        std::error_code ec;
        fs::create_directories(d, ec);
        if (!ec)
            dirs.push_back(d);
    }
    return dirs;
}

std::string stem(const std::string& path) {
    return fs::path(path).stem().string();
}

// What every KernelBench-format result says of its job, whatever the verdict.
VerificationResult jobResult(const KernelBenchJob& job) {
    VerificationResult r;
    r.format = "kernelbench";
    r.problemFile = job.problemFile;
    r.candidateFile = job.candidateFile;
    r.problemId = stem(job.problemFile);
    r.dtype = job.precision;
    return r;
}

}  // namespace

bool isKernelBenchFormat(const std::string& problemFile, const std::string& candidateFile) {
    auto py = [](const std::string& p) { return fs::path(p).extension() == ".py"; };
    return py(problemFile) && py(candidateFile);
}

std::string findPython(const std::string& given) {
    if (!given.empty())
        return given;
    if (const char* e = std::getenv("REACH_PYTHON"); e && *e)
        return e;
    return "python3";
}

VerificationResult composeKernelBench(const KernelBenchJob& job, const json& probe,
                                      const WorkerOutcome& kbRun, const WorkerOutcome& reachRun) {
    VerificationResult r = jobResult(job);
    r.seed = job.seed.value_or(1);
    r.compile.status = "skipped";  // the worker builds (load_inline, Triton) inside its run
    r.kernelbench =
        kernelBenchReport(kbRun.doc.is_object() ? kbRun.doc : failedPart(kbRun, "kernelbench"));
    r.reachOracle = reachRun.doc.is_object() ? reachRun.doc : failedPart(reachRun, "reach");
    const json& kb = r.kernelbench;
    const json& re = r.reachOracle;

    readJudgeVerdict(r, re);
    readJudgeChecks(r, re, job.problemFile);
    readJudgeTiming(r, re, job.recordedBaselineUs, job.recordedBaselineSource);
    addControllerChecks(r, re, job.precision);
    readJudgeDevice(r, re, probe);
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"))
        r.device.visibleDevices = v;

    // KernelBench fooled: its check (as reproduced, a report) called the candidate correct,
    // Reach's oracle does not.
    const bool kbCorrect = kb.contains("correctness") && kb["correctness"].is_boolean() &&
                           kb["correctness"].get<bool>();
    if (kbCorrect && !r.passed() && r.verdict != verdict::kNoGpu && r.verdict != verdict::kError) {
        r.fooled = true;
        r.fooledReason = "KernelBench's check passed it (" + text(kb, "correctness_trials") +
                         ", as reproduced), Reach's oracle says " + r.verdict +
                         (r.reasons.empty() ? std::string() : ": " + r.reasons.front());
    }
    r.log = tail(text(re, "log"), 6000);
    if (!kbRun.doc.is_object() || !reachRun.doc.is_object())
        r.log += (r.log.empty() ? "" : "\n") + tail(kbRun.err + "\n" + reachRun.err, 6000);
    r.wallSeconds = kbRun.seconds + reachRun.seconds;
    return r;
}

VerificationResult runKernelBenchJob(const KernelBenchJob& job) {
    for (const std::string& f : {job.problemFile, job.candidateFile}) {
        std::error_code ec;
        if (!fs::is_regular_file(f, ec))
            throw InputError(f, "file", "a readable KernelBench-format .py file");
    }
    // The bytes this job verifies, named in its document: a result is matched to a problem by
    // them (a benchmark's exact projection), never by a file name someone can reuse.
    const std::string problemSha256 = Sha256::hexOfFile(job.problemFile);
    const std::string candidateSha256 = Sha256::hexOfFile(job.candidateFile);
    std::vector<std::string> common = {"--problem",       job.problemFile, "--candidate",
                                       job.candidateFile, "--precision",   job.precision,
                                       "--device",        job.device};
    if (!job.cacheDir.empty())
        common.insert(common.end(), {"--cache-dir", job.cacheDir});
    if (!job.timing)
        common.push_back("--no-timing");
    if (job.fresh)
        common.push_back("--fresh");
    // The results this job may reuse, in a private file (kbcache.h): the workers read it and
    // never see the cache itself.
    const KbResultCache cache(job.cacheDir, job.problemFile, job.candidateFile);
    const CacheInFile cacheIn(cache);
    std::vector<std::string> extraReadOnly;
    if (!cacheIn.path().empty()) {
        common.insert(common.end(), {"--cache-in", cacheIn.path()});
        extraReadOnly.push_back(cacheIn.path());
    }
    KernelBenchJob effective = job;
    if (job.sandbox && !job.cacheDir.empty())
        effective.sandbox->writablePaths = sandboxBuildDirs(job);

    // Reach's judge first: its document alone gives the verdict, the time, "no GPU", a bad-input
    // answer and every baseline and census the cache keeps (docs/verifier.md, "Trust boundary").
    std::vector<std::string> reachArgs = {"reach"};
    reachArgs.insert(reachArgs.end(), common.begin(), common.end());
    const uint64_t s = job.seed.value_or(1);
    std::string seeds;
    for (int i = 0; i < std::max(1, job.seedCount); ++i)
        seeds += (i ? "," : "") + std::to_string(s + uint64_t(i));
    reachArgs.insert(reachArgs.end(), {"--seeds", seeds, "--reps", std::to_string(job.reps),
                                       "--warmup", std::to_string(job.warmup)});
    if (!job.compileBaseline)
        reachArgs.push_back("--no-compile-baseline");
    if (job.recordedBaselineUs > 0) {
        reachArgs.insert(reachArgs.end(),
                         {"--recorded-baseline-us", std::to_string(job.recordedBaselineUs)});
        if (!job.recordedBaselineSource.empty())
            reachArgs.insert(reachArgs.end(),
                             {"--recorded-baseline-source", job.recordedBaselineSource});
    }
    if (!job.thresholdsFile.empty())
        reachArgs.insert(reachArgs.end(), {"--thresholds", job.thresholdsFile});
    const WorkerOutcome reach = runWorker(effective, reachArgs, extraReadOnly);
    if (!reach.started)
        throw InputError(job.python, "", "an interpreter that starts (" + reach.startError + ")");
    throwIfBadInput(reach, job);
    if (reach.doc.is_object())
        cache.store(reach.doc.value("cache_store", json()), KbResultCache::Source::Judge);

    // Then KernelBench's own check, reproduced: it loads the candidate in its own process, as
    // KernelBench does, so whatever its document says (its verdict, "no GPU", an exit status,
    // entries to store) is a report about KernelBench and decides nothing here. It runs only
    // where the judge judged the candidate.
    const std::string judged = reach.doc.is_object() ? text(reach.doc, "verdict") : std::string();
    WorkerOutcome kb;
    if (judged == verdict::kPass || judged == verdict::kFail || judged == verdict::kCompileError) {
        std::vector<std::string> kbArgs = {"kernelbench"};
        kbArgs.insert(kbArgs.end(), common.begin(), common.end());
        if (job.kbTolerance)
            kbArgs.insert(kbArgs.end(), {"--tolerance", std::to_string(*job.kbTolerance)});
        // KernelBench times 100 trials by default; --reps asks for fewer (or more) everywhere.
        kbArgs.insert(kbArgs.end(), {"--perf-trials", std::to_string(job.reps)});
        kb = runWorker(effective, kbArgs, extraReadOnly);
        if (kb.doc.is_object())
            cache.store(kb.doc.value("cache_store", json()),
                        KbResultCache::Source::KernelBenchReport);
    } else {
        kb.started = false;
        kb.startError = "not run: the judge did not judge the candidate (" +
                        (judged.empty() ? std::string("no document") : judged) + ")";
    }
    if (judged == verdict::kNoGpu) {
        VerificationResult r = jobResult(job);
        r.verdict = verdict::kNoGpu;
        r.reachOracle = reach.doc;
        r.device.reason = "no CUDA device visible to PyTorch";
        for (const auto& why : reach.doc.value("reasons", json::array()))
            if (why.is_string())
                r.device.reason = why.get<std::string>();
        r.reasons = {"no GPU: " + r.device.reason};
        r.queueSeconds = reach.queueSeconds;
        r.problemSha256 = problemSha256;
        r.candidateSha256 = candidateSha256;
        return r;
    }

    VerificationResult r = composeKernelBench(job, json::object(), kb, reach);
    r.queueSeconds = reach.queueSeconds + kb.queueSeconds;
    r.problemSha256 = problemSha256;
    r.candidateSha256 = candidateSha256;
    return r;
}

}  // namespace reach
