// The CUDA-free policy of a verification job (core/verify/verdictpolicy.h): which baseline a
// speedup divides by, the roofline floor and the verdict. CI tests it without a GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "core/verify/verdictpolicy.h"

namespace reach_test_verdictpolicy_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {
TimingStats timing(double medianUs) {
    return TimingStats::fromSamples({medianUs, medianUs, medianUs});
}
}  // namespace

TEST(VerdictPolicy, TheFasterOfMeasuredAndRecordedBaselineIsUsed) {
    BaselineInfo measuredFaster;
    measuredFaster.timing = timing(100);
    measuredFaster.recordedUs = 120;
    chooseBaselineTime(measuredFaster);
    EXPECT_DOUBLE_EQ(measuredFaster.usedUs, 100);
    EXPECT_TRUE(measuredFaster.note.empty());

    BaselineInfo recordedFaster;
    recordedFaster.timing = timing(100);
    recordedFaster.recordedUs = 80;
    chooseBaselineTime(recordedFaster);
    EXPECT_DOUBLE_EQ(recordedFaster.usedUs, 80);
    EXPECT_NE(recordedFaster.note.find("recorded time is faster"), std::string::npos);

    BaselineInfo none;
    chooseBaselineTime(none);
    EXPECT_DOUBLE_EQ(none.usedUs, 0);
    EXPECT_DOUBLE_EQ(speedupOver(none, timing(50)), 0);
    EXPECT_DOUBLE_EQ(speedupOver(measuredFaster, timing(50)), 2.0);
}

TEST(VerdictPolicy, RooflineFloorIsTheLargerOfMemoryAndComputeTime) {
    // 4 GB at 4000 GB/s = 1000 us; 1e11 flop at 989.4 TFLOP/s = 101 us: memory bound.
    const Roofline mem = rooflineFloor(4e9, 1e11, 4000, peakTflops("sm_90", DType::BF16), 950);
    EXPECT_NEAR(mem.floorUs, 1000.0, 1e-9);
    EXPECT_FALSE(mem.belowFloor);  // 950 us is within 10 % of the floor
    const Roofline fast = rooflineFloor(4e9, 1e11, 4000, 989.4, 800);
    EXPECT_TRUE(fast.belowFloor);  // 20 % under what the memory allows: implausible
    // A GEMM: 2 * 8192^3 flop at the bf16 peak is about 1111 us, far above its bytes' time.
    const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
    const Roofline gemm = rooflineFloor(3 * 8192.0 * 8192 * 2, flops, 4000, 989.4, 1500);
    EXPECT_NEAR(gemm.floorUs, flops / 989.4e12 * 1e6, 1e-6);
    EXPECT_DOUBLE_EQ(peakTflops("sm_42", DType::F32), 0.0);
}

// Measured on an H100 (docs/measurements/2026-12-07-verdicts-under-load.md): KernelBench's
// 19_ReLU moves 12.83 GB; the judge's copy ran at 2480-2490 GB/s in that job (floor ~5160 us),
// the eager baseline at 4320 us and an honest candidate at 4240-4274 us: "faster than physics".
// A correct kernel of the problem, timed in the job, bounds the floor: its bandwidth counts
// when it beats the copy's; a cheat that skips half the work is still below the floor.
TEST(VerdictPolicy, TheBaselineOfTheProblemBoundsTheFloor) {
    const double bytes = 12832473088.0;
    const Roofline copyOnly = rooflineFloor(bytes, 0, 2485, 494.7, 4274.0);
    EXPECT_TRUE(copyOnly.belowFloor);  // what the H100 run said of the honest candidate
    EXPECT_EQ(copyOnly.bandwidthBasis, "copy");
    const Roofline honest = rooflineFloor(bytes, 0, 2485, 494.7, 4274.0, 4320.0);
    EXPECT_EQ(honest.bandwidthBasis, "baseline");
    EXPECT_NEAR(honest.bandwidthGBs, bytes / 4320e-6 / 1e9, 1e-6);
    EXPECT_NEAR(honest.floorUs, 4320.0, 1e-6);
    EXPECT_DOUBLE_EQ(honest.copyBandwidthGBs, 2485);  // what was measured stays on record
    EXPECT_FALSE(honest.belowFloor);
    const Roofline half = rooflineFloor(bytes, 0, 2485, 494.7, 1957.0, 4320.0);  // relu_poison
    EXPECT_TRUE(half.belowFloor);
    // A slower baseline than the copy changes nothing: the copy's bandwidth stands.
    const Roofline slowBaseline = rooflineFloor(4e9, 0, 4000, 989.4, 950, 2000);
    EXPECT_EQ(slowBaseline.bandwidthBasis, "copy");
    EXPECT_NEAR(slowBaseline.floorUs, 1000.0, 1e-9);
}

TEST(VerdictPolicy, VerdictPassesOnlyWhenEveryCheckPasses) {
    OracleVerdict clean;
    clean.checks = {{"rel_frobenius", 1e-4, 1e-2, true, ""}};
    VerificationResult ok;
    applyVerdict(ok, 0, clean);
    EXPECT_EQ(ok.verdict, verdict::kPass);
    ASSERT_EQ(ok.checks.size(), 2u);  // return_code + the oracle's
    EXPECT_EQ(ok.checks[0].name, "return_code");

    VerificationResult badRc;
    applyVerdict(badRc, 3, clean);
    EXPECT_EQ(badRc.verdict, verdict::kFail);
    EXPECT_NE(badRc.reasons.at(0).find("returned 3"), std::string::npos);

    OracleVerdict wrong = clean;
    wrong.reasons = {"rel_frobenius: 0.4 > 0.01"};
    VerificationResult bad;
    applyVerdict(bad, 0, wrong);
    EXPECT_EQ(bad.verdict, verdict::kFail);

    VerificationResult tooFast;
    tooFast.timing = timing(10);
    tooFast.roofline = rooflineFloor(4e9, 0, 4000, 989.4, 10);
    applyVerdict(tooFast, 0, clean);
    EXPECT_EQ(tooFast.verdict, verdict::kFail);
    EXPECT_EQ(tooFast.checks.back().name, "roofline_plausible");
    EXPECT_FALSE(tooFast.checks.back().passed);
}

namespace {
// n repetitions: the judge's exchange = the runner's claim + a gap with a little jitter.
ClockSamples samples(double claimedUs, double trueUs, double gapUs, int n = 100) {
    ClockSamples s;
    for (int i = 0; i < n; ++i) {
        const double jitter = (i % 7) * 0.7;
        s.runnerUs.push_back(claimedUs);
        s.judgeUs.push_back(trueUs + gapUs + jitter);
    }
    return s;
}
}  // namespace

TEST(ClockAgreement, AnHonestRunnerAgreesAtEverySize) {
    for (double t : {3.0, 80.0, 2778.0, 1.5e5}) {
        const ClockAgreement a = clockAgreement(samples(t, t, 310), samples(500, 500, 308), false);
        EXPECT_TRUE(a.agrees) << t << ": " << a.detail;
        EXPECT_NEAR(a.judgeTimeUs, t, 10) << a.detail;
        EXPECT_FALSE(a.runnerExceedsJudge);
    }
}

TEST(ClockAgreement, ATimeTwentyTimesShortIsCaught) {
    // The case: a matmul of 2778 us reported as 134 us (Event.elapsed_time patched).
    const ClockAgreement a = clockAgreement(samples(134, 2778, 310), samples(500, 500, 308), false);
    EXPECT_FALSE(a.agrees) << a.detail;
    EXPECT_NEAR(a.hiddenUs, 2644, 10);
    EXPECT_NE(a.detail.find("unexplained"), std::string::npos);
    VerificationResult r;
    r.verdict = verdict::kPass;
    applyClockAgreement(r, a);
    EXPECT_EQ(r.verdict, verdict::kFail);
    ASSERT_EQ(r.reasons.size(), 1u);
    EXPECT_EQ(r.reasons[0].rfind("clock_agreement: ", 0), 0u) << r.reasons[0];
    EXPECT_EQ(r.checks.back().name, "clock_agreement");
}

TEST(ClockAgreement, SmallHiddenTimesWithinTheAllowanceAreNotCalledForgeries) {
    // 5 % of a long kernel, or 20 us of a short one, is jitter and the runner's own overhead.
    EXPECT_TRUE(clockAgreement(samples(1000, 1040, 300), samples(9, 9, 300), false).agrees);
    EXPECT_TRUE(clockAgreement(samples(10, 25, 300), samples(9, 9, 300), false).agrees);
    // 10 % of a long kernel is not.
    EXPECT_FALSE(clockAgreement(samples(1000, 1100, 300), samples(9, 9, 300), false).agrees);
}

TEST(ClockAgreement, NoisyCalibrationClocksWidenTheAllowanceByTheMediansStandardError) {
    // Gaps spread over 240-360 us (an IQR of 120 us) in 100 repetitions: the standard error of
    // each median is 1.2533 * (120 / 1.349) / 10 = 11.1 us, of their difference 15.8 us; four of
    // those, 63 us, is the allowance for a 100 us kernel (its 5 % share is 5 us).
    ClockSamples noisy;
    for (int i = 0; i < 100; ++i) {
        noisy.runnerUs.push_back(100);
        noisy.judgeUs.push_back(100 + 300 + (i % 2 ? 60 : -60));
    }
    const ClockAgreement quiet = clockAgreement(noisy, noisy, false);
    // ... plus the drift between two loops, 8 % of the calibrated gap of 300 us. Both medians'
    // errors are the calibration's (the candidate's spread is its own to shape).
    EXPECT_NEAR(quiet.allowanceUs, 4 * std::sqrt(2.0) * 11.15 + 0.08 * 300, 1.0);
    EXPECT_TRUE(quiet.agrees) << quiet.detail;
    ClockSamples hiding = noisy;
    for (double& j : hiding.judgeUs)
        j += 100;  // 100 us a call the runner's clock did not show
    EXPECT_FALSE(clockAgreement(hiding, noisy, false).agrees);
}

TEST(ClockAgreement, ACandidateCannotWidenItsOwnAllowance) {
    // Issue 36: a runner that reports a tenth of its 3000 us in 70 % of the repetitions and 9000 us
    // in the rest spreads its gaps over thousands of microseconds; the allowance is the
    // calibration's, so its median gap (2700 us above the calibrated one) is hidden time.
    ClockSamples cal, forged;
    for (int i = 0; i < 100; ++i) {
        cal.runnerUs.push_back(3000);
        cal.judgeUs.push_back(3000 + 300 + (i % 7) * 3.0);
        const bool lie = i % 10 < 7;
        forged.runnerUs.push_back(lie ? 300 : 9000);
        forged.judgeUs.push_back(3000 + 300 + (i % 7) * 3.0);
    }
    const ClockAgreement a = clockAgreement(forged, cal, false);
    EXPECT_FALSE(a.agrees) << a.detail;
    EXPECT_LT(a.allowanceUs, 200) << a.detail;
    // With the candidate's own spread in the standard error, the same loop passed.
    EXPECT_GT(a.hiddenUs, 2000) << a.detail;
}

TEST(ClockAgreement, TheHostsDriftBetweenLoopsIsNotAForgery) {
    // Measured on the H200: an honest torch.relu of 130 us whose median gap sat 79 us above its
    // calibrated 879 us, with gaps spread like the real ones (IQR about 130 us). It passes; the
    // same loop hiding 2570 us a call (the 20x short matmul) does not, nor 200 us a call.
    ClockSamples cal, honest;
    for (int i = 0; i < 50; ++i) {
        cal.runnerUs.push_back(130);
        cal.judgeUs.push_back(130 + 879 + ((i % 5) - 2) * 20.0);
        honest.runnerUs.push_back(130);
        honest.judgeUs.push_back(130 + 958 + ((i % 5) - 2) * 60.0);
    }
    const ClockAgreement a = clockAgreement(honest, cal, false);
    EXPECT_TRUE(a.agrees) << a.detail;
    EXPECT_NEAR(a.hiddenUs, 79, 1);
    for (double hidden : {200.0, 2570.0}) {
        ClockSamples forged = honest;
        for (double& j : forged.judgeUs)
            j += hidden;
        EXPECT_FALSE(clockAgreement(forged, cal, false).agrees) << hidden;
    }
}

TEST(ClockAgreement, ARunnerClaimingMoreThanTheWholeExchangeIsNotATime) {
    const ClockAgreement a = clockAgreement(samples(5000, 100, -4990), samples(9, 9, 300), false);
    EXPECT_TRUE(a.runnerExceedsJudge);
    EXPECT_FALSE(a.agrees);
}

TEST(ClockAgreement, NoRepetitionsIsNoAgreement) {
    EXPECT_FALSE(clockAgreement({}, samples(9, 9, 300), false).agrees);
    EXPECT_FALSE(clockAgreement(samples(9, 9, 300), {}, false).agrees);
}

TEST(ClockAgreement, HostClocksAllowTheirLargerJitter) {
    // CPU test mode: 1.5 ms unexplained on a busy machine is jitter; a 20x short 30 ms call is not.
    EXPECT_TRUE(clockAgreement(samples(4000, 5500, 900), samples(300, 300, 900), true).agrees);
    // Measured: a correct softmax, five repetitions, three verifies and two busy loops on two
    // cores; the runner's median 1588 us, the judge's 8550 us against a calibration of 1357 us.
    EXPECT_TRUE(
        clockAgreement(samples(1588, 1588, 6962, 5), samples(251, 251, 1357, 5), true).agrees);
    EXPECT_FALSE(clockAgreement(samples(1500, 30000, 900), samples(300, 300, 900), true).agrees);
    // The same 4.7 ms on the GPU's event clocks is hidden work.
    EXPECT_FALSE(
        clockAgreement(samples(1588, 1588, 6062, 5), samples(251, 251, 1357, 5), false).agrees);
}

TEST(RooflineCheck, AddedOnlyWithAFloor) {
    VerificationResult r;
    r.verdict = verdict::kPass;
    applyRooflineCheck(r);
    EXPECT_TRUE(r.checks.empty());
    r.timing = timing(1.28);
    // 6.4 GB must reach DRAM: at 4100 GB/s that is 1.56 ms (the empty_like ReLU).
    r.roofline = rooflineFloor(6.4e9, 0, 4100, 0, 1.28);
    applyRooflineCheck(r);
    EXPECT_EQ(r.verdict, verdict::kFail);
    EXPECT_EQ(r.checks.back().name, "roofline_plausible");
}

// Measured on an H100: DLRM's 1 MiB clamp_min, honest, a median of 0.0 us (below the judge's
// resolution: a few microseconds under a harness gap of ~330 us) against a floor of 0.36 us was
// called "faster than physically possible". Such a figure claims no time and no speedup; the
// check says it did not judge it, and the verdict stays the oracle's.
TEST(RooflineCheck, AFigureBelowTheJudgesResolutionIsNotJudged) {
    VerificationResult r;
    r.verdict = verdict::kPass;
    r.timing = timing(0.0);
    r.roofline = rooflineFloor(1048576.0, 0, 2934.6, 989.4, 0.0);
    ASSERT_TRUE(r.roofline->belowFloor);
    applyRooflineCheck(r, 120.7);  // that job's clock agreement allowed 120.7 us
    EXPECT_EQ(r.verdict, verdict::kPass);
    ASSERT_EQ(r.checks.size(), 1u);
    EXPECT_TRUE(r.checks[0].passed);
    EXPECT_NE(r.checks[0].detail.find("not judged"), std::string::npos);
    BaselineInfo b;
    b.usedUs = 6.1;
    EXPECT_EQ(speedupOver(b, *r.timing), 0.0);  // and no speedup is claimed from it
    // A floor the judge can resolve: a figure at or below 0 is work done off the clock (the C++
    // first-call-only cheat on add_32M: -2.8 us against a floor of 97.3 us, 23.9 us allowed).
    VerificationResult cheat;
    cheat.verdict = verdict::kPass;
    cheat.timing = timing(-2.8);
    cheat.roofline = rooflineFloor(389e6, 0, 4000, 494.7, -2.8);
    applyRooflineCheck(cheat, 23.9);
    EXPECT_EQ(cheat.verdict, verdict::kFail);
    EXPECT_FALSE(cheat.checks.back().passed);
    // The resolution is the calibration's alone: a long claim widens the allowance (5 % of it)
    // but never what the roofline check takes for unresolvable.
    const ClockAgreement a =
        clockAgreement(samples(3000, 3000, 300), samples(250, 250, 300), false);
    EXPECT_GT(a.allowanceUs, a.resolutionUs);
    EXPECT_NEAR(a.allowanceUs, 0.05 * 3000, 1e-9);
    EXPECT_LT(a.resolutionUs, 0.05 * 3000);
}

}  // namespace reach_test_verdictpolicy_test
