#include "core/verify/verdictpolicy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
                       double candidateMedianUs, double baselineUs) {
    Roofline rf;
    rf.minimalBytes = minimalBytes;
    rf.flops = flops;
    rf.copyBandwidthGBs = copyBandwidthGBs;
    rf.peakTflops = peak;
    rf.bandwidthGBs = copyBandwidthGBs;
    rf.bandwidthBasis = "copy";
    if (baselineUs > 0 && minimalBytes > 0) {
        const double reached = minimalBytes / (baselineUs * 1e-6) / 1e9;
        if (reached > rf.bandwidthGBs) {
            rf.bandwidthGBs = reached;
            rf.bandwidthBasis = "baseline";
        }
    }
    const double memUs = rf.bandwidthGBs > 0 ? minimalBytes / (rf.bandwidthGBs * 1e9) * 1e6 : 0;
    const double cmpUs = peak > 0 ? flops / (peak * 1e12) * 1e6 : 0;
    rf.floorUs = std::max(memUs, cmpUs);
    rf.belowFloor = candidateMedianUs < 0.9 * rf.floorUs;
    return rf;
}

namespace {

double median(std::vector<double> v) {
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double quantile(std::vector<double> v, double p) {
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t i = size_t(std::floor(p * double(v.size() - 1) + 0.5));
    return v[std::min(i, v.size() - 1)];
}

std::vector<double> gaps(const ClockSamples& s) {
    std::vector<double> g;
    const size_t n = std::min(s.judgeUs.size(), s.runnerUs.size());
    for (size_t i = 0; i < n; ++i)
        g.push_back(s.judgeUs[i] - s.runnerUs[i]);
    return g;
}

std::string us(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// What the two medians may differ by without anything hidden: the larger of a floor, a share of
// the candidate's time (clock rates, the slot copy's L2 state after different kernels) and
// kSigmas standard errors of the difference of the two medians. The gaps' jitter is the host's
// (two messages, two synchronizations: an interquartile range of 40-330 us was measured on the
// H200 machine with three verifies at once); a median of n samples has a standard error of about
// 1.2533 * sigma / sqrt(n), with sigma = IQR / 1.349 for a normal spread. Host clocks (the CPU
// test mode) share one busy machine with everything else, and a process woken on an
// oversubscribed core waits a scheduler slice or more: with three verifies and two busy loops on
// the 2-core CI machine the median gap of a correct candidate exceeded its calibration by 4.7 ms.
// Their floor is 10 ms, so on the CPU only hidden work above 10 ms a call is caught (the red
// team's CPU cases hide 30 ms); the GPU's event clocks keep a 20 us floor. On the GPU the
// standard errors add to a drift: the host's part of the exchange moves between two loops
// seconds apart by more than either loop's spread says (on the H200, an honest torch.relu's
// median gap was 79 us, 9 % of its calibrated 879 us, above the calibration; 19_ReLU's 107 us
// below), so kGpuGapDrift of the calibrated gap is allowed beside them. A forgery hides its
// whole hidden time in every call (2570 us of a 836 us gap for the 20x short matmul).
// The spread is the calibration's alone, taken for both medians (the same machinery, the same
// number of repetitions): the candidate's own gaps are the candidate's to shape. One that reported
// a tenth of its time in 70 % of its repetitions and far longer times in the rest widened an
// allowance computed from its own interquartile range until it passed at 5.9x (issue 36).
constexpr double kMinGpuUs = 20.0, kGpuShare = 0.05, kGpuGapDrift = 0.08;
constexpr double kMinHostUs = 10000.0, kHostShare = 0.25;
constexpr double kSigmas = 4.0;

double medianStandardError(const std::vector<double>& v) {
    if (v.size() < 2)
        return 0;
    const double iqr = quantile(v, 0.75) - quantile(v, 0.25);
    return 1.2533 * (iqr / 1.349) / std::sqrt(double(v.size()));
}

}  // namespace

ClockAgreement clockAgreement(const ClockSamples& candidate, const ClockSamples& calibration,
                              bool hostClocks) {
    ClockAgreement a;
    const std::vector<double> gc = gaps(candidate), gb = gaps(calibration);
    if (gc.empty() || gb.empty()) {
        a.detail = "no repetitions to compare";
        return a;
    }
    a.candidateGapUs = median(gc);
    a.calibrationGapUs = median(gb);
    a.hiddenUs = a.candidateGapUs - a.calibrationGapUs;
    const double claimed = median(candidate.runnerUs);
    const double se = std::sqrt(2.0) * medianStandardError(gb);
    const double drift = hostClocks ? 0.0 : kGpuGapDrift * std::max(0.0, a.calibrationGapUs);
    a.resolutionUs = std::max(hostClocks ? kMinHostUs : kMinGpuUs, kSigmas * se + drift);
    a.allowanceUs = std::max(a.resolutionUs, (hostClocks ? kHostShare : kGpuShare) * claimed);
    a.judgeTimeUs = median(candidate.judgeUs) - a.calibrationGapUs;
    // The runner's event window lies inside the judge's exchange: a claim longer than the
    // exchange is not a time.
    a.runnerExceedsJudge = a.candidateGapUs < 0;
    a.agrees = std::isfinite(a.hiddenUs) && !a.runnerExceedsJudge && a.hiddenUs <= a.allowanceUs;
    if (a.runnerExceedsJudge)
        a.detail = "the runner reported " + us(claimed) +
                   " us, longer than the judge's whole exchange (" + us(median(candidate.judgeUs)) +
                   " us)";
    else
        a.detail = "runner " + us(claimed) + " us, judge " + us(a.judgeTimeUs) +
                   " us (its exchange " + us(median(candidate.judgeUs)) +
                   " us less the calibrated " + us(a.calibrationGapUs) +
                   " us): " + us(std::max(0.0, a.hiddenUs)) + " us unexplained, allowed " +
                   us(a.allowanceUs) + " us";
    return a;
}

namespace {
void failIfPassed(VerificationResult& r, const std::string& reason) {
    r.reasons.push_back(reason);
    if (r.verdict == verdict::kPass)
        r.verdict = verdict::kFail;
}
}  // namespace

void applyClockAgreement(VerificationResult& r, const ClockAgreement& a) {
    r.checks.push_back({"clock_agreement", a.hiddenUs, a.allowanceUs, a.agrees, a.detail});
    if (!a.agrees)
        failIfPassed(r, "clock_agreement: the runner's clock disagrees with the judge's: " +
                            a.detail + " (a forged time, or work outside the timed stream)");
}

void applyRooflineCheck(VerificationResult& r, double resolutionUs) {
    if (!r.roofline || !r.timing || r.roofline->floorUs <= 0)
        return;
    // A figure below the judge's resolution on a problem whose floor is below it too (a kernel
    // of a few microseconds under a harness gap of hundreds, measured on an H100: DLRM's 1 MiB
    // clamp_min at 0.0 us against a floor of 0.36 us, ~120 us resolved) is no time at all: no
    // speedup is claimed from it, and it says nothing about physics either way. Where the floor
    // is above the resolution (the C++ first-call-only cheat: -2.8 us against 97.3 us), the work
    // was not in the window, and the check fails as before.
    if (r.timing->medianUs <= 0 && r.roofline->floorUs <= resolutionUs) {
        r.checks.push_back({"roofline_plausible", r.timing->medianUs, 0.9 * r.roofline->floorUs,
                            true,
                            "not judged: the median is below the judge's resolution (no time "
                            "or speedup is claimed from it)"});
        return;
    }
    const bool ok = !r.roofline->belowFloor;
    const std::string d =
        "median " + us(r.timing->medianUs) + " us vs floor " + us(r.roofline->floorUs) + " us";
    r.checks.push_back(
        {"roofline_plausible", r.timing->medianUs, 0.9 * r.roofline->floorUs, ok, d});
    if (!ok)
        failIfPassed(r, "roofline_plausible: faster than physically possible, " + d);
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
    r.verdict = r.reasons.empty() ? verdict::kPass : verdict::kFail;
    applyRooflineCheck(r);  // the one roofline rule, the KernelBench-format path's too
}

}  // namespace reach
