#include "core/verify/verifyprocess.h"

#include <unistd.h>

#include <cstdlib>

#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/verify/childprocess.h"

namespace reach {

namespace {
std::string tail(std::string s, size_t n = 8000) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}
}  // namespace

std::string findVerifierExecutable() {
    if (const char* e = std::getenv("REACH_VERIFY"))
        return e;
    std::string here = executableDir() + "/reach-verify";
    if (access(here.c_str(), X_OK) == 0)
        return here;
    return "reach-verify";
}

VerificationResult runVerifierProcess(const VerifyProcessRequest& req) {
    std::vector<std::string> argv = {req.verifier, "--problem", req.problemFile, "--candidate",
                                     req.candidateFile};
    argv.insert(argv.end(), req.extraArgs.begin(), req.extraArgs.end());
    ChildResult c = runChild(argv, req.timeoutSeconds);

    VerificationResult r;
    r.problemFile = req.problemFile;
    r.candidateFile = req.candidateFile;
    r.exitCode = c.exitCode;
    r.termSignal = c.termSignal;
    r.wallSeconds = c.seconds;
    if (!c.started) {
        r.verdict = verdict::kError;
        r.reasons = {"cannot start the verifier: " + c.error};
        return r;
    }
    if (c.timedOut) {
        r.verdict = verdict::kTimeout;
        r.reasons = {"timeout: killed after " + std::to_string(int(req.timeoutSeconds)) +
                     " s (a hang, or a job slower than the timeout)"};
        r.log = tail(c.err);
        return r;
    }
    if (!c.out.empty()) {
        try {
            VerificationResult parsed =
                VerificationResult::fromJson(nlohmann::json::parse(c.out), req.verifier);
            parsed.exitCode = c.exitCode;
            parsed.termSignal = c.termSignal;
            if (!c.err.empty())
                parsed.log += tail(c.err);
            return parsed;
        } catch (const std::exception&) {
            // Fall through: output cut short by a crash.
        }
    }
    if (c.exitCode == 2) {
        r.verdict = verdict::kError;
        r.reasons = {"bad input: " + tail(c.err, 400)};
    } else {
        r.verdict = verdict::kCrashed;
        r.reasons = {c.termSignal ? "crashed: the verifier process died of signal " +
                                        std::to_string(c.termSignal)
                                  : "crashed: the verifier exited " + std::to_string(c.exitCode) +
                                        " without a result"};
    }
    r.log = tail(c.err + "\n" + c.out);
    return r;
}

}  // namespace reach
