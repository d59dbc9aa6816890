#pragma once

#include <string>
#include <vector>

#include "core/verify/verification.h"

namespace reach {

// Runs one reach-verify job in its own process and turns whatever happens into a result: the
// child's JSON when it printed one; otherwise a synthesized result whose verdict is "timeout"
// (killed after timeoutSeconds), "crashed" (a signal, or no JSON) or "error" (exit 2: bad
// input), with the child's stderr in `log`. The caller never dies with the child.
struct VerifyProcessRequest {
    std::string verifier;  // path of reach-verify
    std::string problemFile;
    std::string candidateFile;
    std::vector<std::string> extraArgs;  // --reps N, --seed S, ...
    double timeoutSeconds = 60;
};

VerificationResult runVerifierProcess(const VerifyProcessRequest& req);

// reach-verify beside the running executable, else $REACH_VERIFY, else "reach-verify" (PATH).
std::string findVerifierExecutable();

}  // namespace reach
