// The CUDA-free policy of a verification job (core/verify/verdictpolicy.h): which baseline a
// speedup divides by, the roofline floor and the verdict. CI tests it without a GPU.
#include <gtest/gtest.h>

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

}  // namespace reach_test_verdictpolicy_test
