#include "core/records/evalrecord.h"

#include <algorithm>

namespace reach {

std::string_view verificationKey(Verification v) {
    switch (v) {
        case Verification::Passed:
            return "passed";
        case Verification::Failed:
            return "failed";
        case Verification::Unverified:
            break;
    }
    return "unverified";
}

std::optional<Verification> verificationFromString(std::string_view s) {
    if (s == "unverified")
        return Verification::Unverified;
    if (s == "passed")
        return Verification::Passed;
    if (s == "failed")
        return Verification::Failed;
    return std::nullopt;
}

std::optional<double> EvalRecord::effectiveBaselineUs() const {
    std::optional<double> best;
    for (const auto& b : {baselineEagerUs, baselineCompileUs, baselineRecordedUs}) {
        if (b && *b > 0 && (!best || *b < *best))
            best = *b;
    }
    return best;
}

std::optional<double> EvalRecord::speedupFromTimes() const {
    const auto base = effectiveBaselineUs();
    if (!base || !candidateTimeUs || *candidateTimeUs <= 0)
        return std::nullopt;
    return *base / *candidateTimeUs;
}

}  // namespace reach
