#pragma once

#include <vector>

namespace reach {

// The judge's own clock (docs/verifier.md, "A time the judge owns"): the figure Reach reports for
// a timed repetition is the judge's window around it less the harness's part of that window,
// which the judge calibrates on code it trusts (Reach's baseline, the problem's Model) timed the
// same way before the candidate is loaded. The runner's own event times are a claim, held
// against the judge's window by the clock agreement (verdictpolicy.h), never the figure.
//
// One rule for both verifiers: the C++ controller here, the KernelBench-format judge in
// resources/python/reach_kb/judgetiming.py (Calibration); tests/data/timing/harness_golden.json
// gives both the same repetitions and the same numbers out.

// The judge's readings of each timed repetition of one loop (us). On the GPU: totalUs from the
// judge's first event (before the inputs exist for the runner) to its last (the output read);
// stretchUs its own part before `go` (the inputs, the L2 flush, the spacer); claimUs what the
// runner's events said. On the host clock (CPU tests) stretchUs is empty.
struct RepetitionClock {
    std::vector<double> totalUs;
    std::vector<double> stretchUs;
    std::vector<double> claimUs;
};

struct HarnessCalibration {
    double gapUs = 0;               // median(window - claim) of the trusted loop
    double stretchUs = 0;           // median of its stretch
    double stretchToleranceUs = 0;  // what the judge's own stretch varies by (3 MADs, >= 2 us)
    int reps = 0;
};

// From the trusted loop's readings (gpu: the stretch is the judge's own GPU work).
HarnessCalibration calibrateHarness(const RepetitionClock& trusted, bool gpu);

// Each repetition's window: total - stretch, plus whatever the stretch took beyond the
// calibration's median and tolerance (GPU time another context took while the inputs existed:
// the candidate's).
std::vector<double> judgeWindows(const RepetitionClock& loop, const HarnessCalibration& cal);

// The figures: each window less the calibrated gap, never below 0. On a host clock (the
// KernelBench-format worker's CPU test mode: a window holds two processes' wake-ups on a busy
// machine, milliseconds of noise around a call of microseconds) a figure is never below the
// runner's own claim either: a claim too short cannot lower it, one too long only costs the
// candidate.
std::vector<double> judgeFigures(const RepetitionClock& loop, const HarnessCalibration& cal,
                                 bool hostClock = false);

}  // namespace reach
