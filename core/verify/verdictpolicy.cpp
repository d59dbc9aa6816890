#include "core/verify/verdictpolicy.h"

#include <algorithm>

namespace reach {

void chooseBaselineTime(BaselineInfo& b) {
    const double measured = b.timing ? b.timing->medianUs : 0;
    b.usedUs = 0;
    if (measured > 0 && (b.recordedUs <= 0 || measured <= b.recordedUs)) {
        b.usedUs = measured;
    } else if (b.recordedUs > 0) {
        b.usedUs = b.recordedUs;
        b.note += (b.note.empty() ? "" : "; ") + std::string("recorded time is faster");
    }
}

double speedupOver(const BaselineInfo& b, const TimingStats& candidate) {
    return b.usedUs > 0 && candidate.medianUs > 0 ? b.usedUs / candidate.medianUs : 0.0;
}

double peakTflops(const std::string& arch, DType d) {
    const bool bf = d == DType::BF16 || d == DType::F16;
    if (arch == "sm_90")
        return bf ? 989.4 : 494.7;
    if (arch == "sm_80")
        return bf ? 312.0 : 156.0;
    if (arch == "sm_89")
        return bf ? 362.0 : 181.0;
    if (arch == "sm_100")
        return bf ? 2250.0 : 1100.0;
    return 0;
}

Roofline rooflineFloor(double minimalBytes, double flops, double copyBandwidthGBs, double peak,
                       double candidateMedianUs) {
    Roofline rf;
    rf.minimalBytes = minimalBytes;
    rf.flops = flops;
    rf.copyBandwidthGBs = copyBandwidthGBs;
    rf.peakTflops = peak;
    const double memUs = copyBandwidthGBs > 0 ? minimalBytes / (copyBandwidthGBs * 1e9) * 1e6 : 0;
    const double cmpUs = peak > 0 ? flops / (peak * 1e12) * 1e6 : 0;
    rf.floorUs = std::max(memUs, cmpUs);
    rf.belowFloor = candidateMedianUs < 0.9 * rf.floorUs;
    return rf;
}

void applyVerdict(VerificationResult& r, int rc, const OracleVerdict& ov) {
    r.hasMetrics = true;
    r.metrics = ov.metrics;
    r.checks.push_back(
        {"return_code", double(rc), 0, rc == 0, "reach_run returned " + std::to_string(rc)});
    if (rc != 0)
        r.reasons.push_back("return_code: reach_run returned " + std::to_string(rc));
    for (const CheckResult& c : ov.checks)
        r.checks.push_back(c);
    for (const std::string& s : ov.reasons)
        r.reasons.push_back(s);
    if (r.roofline && r.timing) {
        const bool ok = !r.roofline->belowFloor;
        const std::string d = "median " + std::to_string(r.timing->medianUs) + " us vs floor " +
                              std::to_string(r.roofline->floorUs) + " us";
        r.checks.push_back(
            {"roofline_plausible", r.timing->medianUs, 0.9 * r.roofline->floorUs, ok, d});
        if (!ok)
            r.reasons.push_back("roofline_plausible: faster than physically possible, " + d);
    }
    r.verdict = r.reasons.empty() ? verdict::kPass : verdict::kFail;
}

}  // namespace reach
