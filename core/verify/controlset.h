#pragma once

#include <string>
#include <vector>

#include "core/verify/verification.h"

namespace reach {

// One shipped control (resources/controls/controls.json): a candidate built to pass (positive,
// and the Reach baselines) or to fail for one stated reason (negative, fault).
struct ControlSpec {
    std::string name;
    std::string kind;                       // "positive", "baseline", "negative", "fault"
    std::string candidate;                  // absolute path after loading
    std::string problem;                    // absolute path after loading
    std::string expectVerdict;              // pass, fail, compile_error, crashed, timeout
    std::vector<std::string> expectChecks;  // a failed check among these is the intended reason
    double timeoutSeconds = 60;
    std::string purpose;
};

// Reads the manifest; relative paths resolve against `resourceDir`. Throws InputError.
std::vector<ControlSpec> loadControls(const std::string& manifest, const std::string& resourceDir);

struct ControlJudgement {
    bool asDesigned = false;
    std::string why;
};

// Did the control behave as designed: the expected verdict and, for a "fail", one of the
// expected checks among the failed ones (it tripped for the reason it was built to trip)?
ControlJudgement judgeControl(const ControlSpec& c, const VerificationResult& r);

}  // namespace reach
