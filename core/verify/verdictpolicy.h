#pragma once

#include <string>

#include <vector>

#include "core/verify/dtype.h"
#include "core/verify/oracle.h"
#include "core/verify/verification.h"

namespace reach {

// The CUDA-free policy of a verification job: which baseline time a speedup divides by, the
// roofline floor, and the verdict from the oracle's checks. gpu/cudarunner.cpp measures; these
// decide, and are tested in CI without a GPU.

// As the study did: the faster of the baseline measured here (b.timing) and a recorded time
// (b.recordedUs); sets b.usedUs (0 when neither) and says so in b.note.
void chooseBaselineTime(BaselineInfo& b);
// b.usedUs / candidate median; 0 when either is missing.
double speedupOver(const BaselineInfo& b, const TimingStats& candidate);

// Dense tensor-core peak for the dtype from vendor datasheets (TF32 for f32), TFLOP/s: the
// arithmetic ceiling of the roofline, so the floor stays a lower bound; 0 when unknown.
double peakTflops(const std::string& arch, DType d);

// max(bytes / bandwidth, flops / peak); below the floor by more than 10 % is physically
// implausible. The bandwidth is the copy's, or, when faster, what the baseline reached on this
// problem in this job (minimal bytes / baselineUs; 0: none timed): a correct kernel that moved
// the bytes that fast proves the GPU can, so a floor above its time would not be a floor. A
// candidate cannot shape it (the judge times the baseline, in its own process).
Roofline rooflineFloor(double minimalBytes, double flops, double copyBandwidthGBs,
                       double peakTflops, double candidateMedianUs, double baselineUs = 0);

// The runner's clock held against the judge's (docs/verifier.md, "A time the candidate cannot
// rewrite"). Per timed repetition: judgeUs, the judge's own clock around the whole exchange
// (its spacer, the runner's call, the hand-over of the output, both synchronizations), and
// runnerUs, the event time the runner reports: a claim. judge - runner is the same machinery
// for every callable, so the problem's own code, timed the same way before the candidate was
// loaded, calibrates it; time the runner's clock hid from the judge widens the gap.
struct ClockSamples {
    std::vector<double> judgeUs;
    std::vector<double> runnerUs;
};
struct ClockAgreement {
    double candidateGapUs = 0;    // median(judge - runner) of the candidate's repetitions
    double calibrationGapUs = 0;  // the same for the problem's own code
    double hiddenUs = 0;          // the difference: time the runner's clock did not show
    double allowanceUs = 0;       // what jitter and the runner's own overhead explain
    // What the judge's clock cannot tell apart, from the calibration alone (the allowance less
    // its share of the runner's claim, which the candidate writes).
    double resolutionUs = 0;
    double judgeTimeUs = 0;           // the judge's own estimate: median(judge) - calibration gap
    bool runnerExceedsJudge = false;  // the runner claimed more than the judge's whole exchange
    bool agrees = false;
    std::string detail;  // one line, for the check and the reason
};
// hostClocks: both clocks are the host's (the CPU test mode), with their larger jitter.
ClockAgreement clockAgreement(const ClockSamples& candidate, const ClockSamples& calibration,
                              bool hostClocks);
// Adds the check "clock_agreement" (and its reason when it fails) to r; a failure makes a pass a
// fail, never chooses another time silently.
void applyClockAgreement(VerificationResult& r, const ClockAgreement& a);
// Adds "roofline_plausible" for r.roofline and r.timing (set by the caller); a failure makes a
// pass a fail.
// resolutionUs: what the judge's clock cannot tell apart (ClockAgreement::resolutionUs, from
// the calibration alone; 0 when unknown). A median at or below 0 on a problem whose floor is within
// it is no time at all and is not judged; on a problem whose floor is above it, it is work done off
// the clock.
void applyRooflineCheck(VerificationResult& r, double resolutionUs = 0);

// The checks and verdict of a finished correctness run: the candidate's return code, every
// oracle check, and roofline_plausible when a roofline was measured. `pass` only when all pass.
void applyVerdict(VerificationResult& r, int returnCode, const OracleVerdict& oracle);

}  // namespace reach
