#include "core/verify/verifyprocess.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/verify/childprocess.h"
#include "core/verify/queueclock.h"
#include "core/verify/workerserver.h"

namespace reach {

namespace {

std::string tail(std::string s, size_t n = 8000) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

}  // namespace

std::vector<std::string> verifierArguments(const VerifyProcessRequest& req) {
    std::vector<std::string> argv = {req.verifier, "--problem", req.problemFile, "--candidate",
                                     req.candidateFile};
    argv.insert(argv.end(), req.extraArgs.begin(), req.extraArgs.end());
    return argv;
}

std::string findVerifierExecutable() {
    if (const char* e = std::getenv("REACH_VERIFY"); e && *e)
        return e;
    const std::string here = executableDir() + "/reach-verify";
    if (access(here.c_str(), X_OK) == 0)
        return here;
    return "reach-verify";
}

bool verifierExecutableFound() {
    const std::string v = findVerifierExecutable();
    if (v.find('/') != std::string::npos)
        return access(v.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty() && access((dir + "/" + v).c_str(), X_OK) == 0)
            return true;
    }
    return false;
}

std::optional<nlohmann::json> verifierDocument(const VerifierRun& run) {
    if (run.out.empty() || run.timedOut)
        return std::nullopt;
    auto doc = tryParseJson(run.out);
    if (!doc || !doc->is_object())
        return std::nullopt;
    try {
        VerificationResult::fromJson(*doc, "reach-verify");
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return doc;
}

VerificationResult resultFromRun(const VerifyProcessRequest& req, const VerifierRun& run) {
    VerificationResult r;
    r.problemFile = req.problemFile;
    r.candidateFile = req.candidateFile;
    r.exitCode = run.exitCode;
    r.termSignal = run.termSignal;
    r.wallSeconds = run.seconds;
    if (!run.started) {
        r.verdict = verdict::kError;
        r.reasons = {"cannot start the verifier '" + req.verifier + "': " + run.startError};
        return r;
    }
    r.queueSeconds = run.queueSeconds;
    if (run.gpuBusy) {
        // Waiting is never the candidate's fault (issue 38): an error, not a verdict.
        r.verdict = verdict::kError;
        r.reasons = {"error: the GPU was busy for " + std::to_string(int(run.queueSeconds)) +
                     " s (other jobs held it)"};
        r.log = tail(run.err);
        return r;
    }
    if (run.timedOut) {
        r.verdict = verdict::kTimeout;
        r.reasons = {"timeout: killed after " + std::to_string(int(req.timeoutSeconds)) +
                     " s of its own work (a hang, or a job slower than the timeout)" +
                     (run.queueSeconds >= 1
                          ? "; it also waited " + std::to_string(int(run.queueSeconds)) +
                                " s for the GPU, not counted"
                          : std::string())};
        r.log = tail(run.err);
        return r;
    }
    if (!run.out.empty()) {
        try {
            // The candidate runs inside the verifier and may print anything: bounded parse.
            const auto doc = tryParseJson(run.out);
            if (!doc)
                throw std::runtime_error("not a JSON document");
            VerificationResult parsed = VerificationResult::fromJson(*doc, req.verifier);
            parsed.exitCode = run.exitCode;
            parsed.queueSeconds = std::max(parsed.queueSeconds, run.queueSeconds);
            parsed.termSignal = run.termSignal;
            if (!run.err.empty())
                parsed.log += tail(run.err);
            return parsed;
        } catch (const std::exception&) {
            // Fall through: output cut short by a crash, or not the verifier's document.
        }
    }
    if (!run.crashed && run.exitCode == 2) {
        r.verdict = verdict::kError;
        r.reasons = {"bad input: " + tail(run.err, 400)};
    } else {
        r.verdict = verdict::kCrashed;
        r.reasons = {run.crashed
                         ? "crashed: the verifier process died" +
                               (run.termSignal ? " of signal " + std::to_string(run.termSignal)
                                               : std::string())
                         : "crashed: the verifier exited " + std::to_string(run.exitCode) +
                               " without a result"};
    }
    r.log = tail(run.err + "\n" + run.out);
    return r;
}

VerificationResult runVerifierProcess(const VerifyProcessRequest& req, VerifierRun* out,
                                      std::stop_token stop, bool* cancelled) {
    // A worker server's connection only where this request passes one: a variable inherited
    // from the caller's own environment would name a descriptor nobody gave this child.
    std::vector<std::string> env = {kWorkerServerFdVariable};
    env.insert(env.end(), req.env.begin(), req.env.end());
    const QueueFile queue = QueueFile::make();
    const ChildResult c = runChild(verifierArguments(req), req.timeoutSeconds, env, stop,
                                   req.inheritFds, {&queue, req.queueLimitSeconds});
    if (cancelled)
        *cancelled = c.cancelled;
    VerifierRun local;
    VerifierRun& run = out ? *out : local;
    run.started = c.started;
    run.startError = c.error;
    run.timedOut = c.timedOut;
    run.gpuBusy = c.gpuBusy;
    run.queueSeconds = c.queueSeconds;
    run.crashed = c.termSignal != 0;
    run.exitCode = c.exitCode;
    run.termSignal = c.termSignal;
    run.out = c.out;
    run.err = c.err;
    run.seconds = c.seconds;
    return resultFromRun(req, run);
}

}  // namespace reach
