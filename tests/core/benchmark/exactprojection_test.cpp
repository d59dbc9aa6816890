// The exact projection's arithmetic (core/benchmark/exactprojection.h), every expected value
// computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/benchmark/exactprojection.h"

namespace reach_test_exactprojection_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

// A loop with only a median: nothing to draw its uncertainty from.
TimedLoop fixedAt(double us) {
    TimedLoop t;
    t.medianUs = us;
    return t;
}

TimedLoop spread(double median, double p10, double p90, int reps) {
    TimedLoop t;
    t.medianUs = median;
    t.p10Us = p10;
    t.p90Us = p90;
    t.reps = reps;
    return t;
}

ExactProblemInput problem(double share, std::optional<ChosenResult> result = std::nullopt) {
    ExactProblemInput p;
    p.share = share;
    p.result = std::move(result);
    return p;
}

// Four problems: a 2.5x winner on 30 %, a slower candidate on 10 %, nothing on 5 %, a 1.5x
// winner on 2 %.
ExactProjectionInput fourProblems() {
    ExactProjectionInput in;
    in.problems = {problem(0.30, ChosenResult{fixedAt(40), fixedAt(100)}),
                   problem(0.10, ChosenResult{fixedAt(12.5), fixedAt(10)}), problem(0.05),
                   problem(0.02, ChosenResult{fixedAt(20), fixedAt(30)})};
    in.addressableShare = 0.6;
    in.wall = WallClock{1000, 800, 2000};
    return in;
}

}  // namespace

// saved = 0.30 (1 - 1/2.5) + 0.02 (1 - 1/1.5) = 0.18 + 0.0066667 = 0.1866667; the slower
// candidate (sigma 0.8) and the problem without a result stay at their baseline.
TEST(ExactProjection, SumsTheWinnersSavingsAndKeepsTheRestAtBaseline) {
    const ExactProjection x = computeExactProjection(fourProblems());
    ASSERT_EQ(x.problems.size(), 4u);
    EXPECT_TRUE(x.problems[0].winner);
    EXPECT_DOUBLE_EQ(x.problems[0].sigma, 2.5);
    EXPECT_NEAR(x.problems[0].savedShare, 0.18, 1e-12);
    EXPECT_FALSE(x.problems[1].winner);
    EXPECT_DOUBLE_EQ(x.problems[1].sigma, 0.8);
    EXPECT_EQ(x.problems[1].savedShare, 0);
    EXPECT_FALSE(x.problems[2].winner);
    EXPECT_EQ(x.problems[2].sigma, 0);
    EXPECT_NEAR(x.problems[3].savedShare, 0.02 / 3, 1e-12);
    EXPECT_EQ(x.winners, 2);
    EXPECT_NEAR(x.coveredShare, 0.47, 1e-12);
    EXPECT_NEAR(x.savedShare, 0.18 + 0.02 / 3, 1e-12);
    // 1 / (1 - 0.1866667) = 1.2295082
    EXPECT_NEAR(x.endToEndSpeedup, 1.0 / (1 - (0.18 + 0.02 / 3)), 1e-12);
    EXPECT_NEAR(x.endToEndSpeedup, 1.2295082, 1e-6);
}

// Of the wall clock: 0.1866667 x 1000 us of GPU time saved over a 2000 us span = 0.0933333; the
// speedup 1 / (1 - 0.0933333) = 1.1029412.
TEST(ExactProjection, WallClockBasisIsTheSavedGpuTimeOverTheSpan) {
    const ExactProjection x = computeExactProjection(fourProblems());
    ASSERT_TRUE(x.wallSavedShare());
    EXPECT_NEAR(*x.wallSavedShare(), 0.0933333333, 1e-9);
    EXPECT_NEAR(*x.wallEndToEndSpeedup(), 1.1029411765, 1e-9);
    // Capped by the busy time: saving 90 % of 1000 us cannot shorten the span by more than the
    // 800 us the GPU was busy.
    ExactProjectionInput in;
    in.problems = {problem(0.95, ChosenResult{fixedAt(1), fixedAt(20)})};
    in.wall = WallClock{1000, 800, 2000};
    EXPECT_NEAR(*computeExactProjection(in).wallSavedShare(), 0.4, 1e-12);
    // No span: no wall-clock basis.
    in.wall = std::nullopt;
    EXPECT_FALSE(computeExactProjection(in).wallSavedShare());
}

// The study's method on the same results: A = 0.6, w = 2 winners / 4 problems = 0.5, m =
// median(2.5, 1.5) = 2.0: 0.6 x 0.5 x (1 - 1/2) = 0.15.
TEST(ExactProjection, StudysFormulaUsesTheWinRateAndMedianOfTheSameResults) {
    const ExactProjection x = computeExactProjection(fourProblems());
    ASSERT_TRUE(x.medianWinnerSigma);
    EXPECT_DOUBLE_EQ(*x.medianWinnerSigma, 2.0);
    EXPECT_DOUBLE_EQ(x.study.winRate, 0.5);
    EXPECT_DOUBLE_EQ(x.study.addressableShare, 0.6);
    EXPECT_NEAR(x.study.savedShare, 0.15, 1e-12);
    // Its wall-clock basis: 0.15 x 1000 / 2000.
    EXPECT_NEAR(*x.study.wallSavedShare(), 0.075, 1e-12);

    ExactProjectionInput none;
    none.problems = {problem(0.2), problem(0.1, ChosenResult{fixedAt(2), fixedAt(1)})};
    none.addressableShare = 0.6;
    const ExactProjection n = computeExactProjection(none);
    EXPECT_EQ(n.winners, 0);
    EXPECT_FALSE(n.medianWinnerSigma);
    EXPECT_EQ(n.study.savedShare, 0);
    EXPECT_EQ(n.savedShare, 0);
    EXPECT_EQ(n.savedInterval.lo, 0);
    EXPECT_EQ(n.savedInterval.hi, 0);
}

// sd = (p90 - p10) / 2.563 = 12.815 / 2.563 = 5; the median's standard error 1.2533 x 5 /
// sqrt(100) = 0.62665. Without p10/p90 or a repetition count there is none.
TEST(ExactProjection, MedianStandardErrorFromTheTenToNinetySpread) {
    const auto se = spread(100, 95, 107.815, 100).medianStandardError();
    ASSERT_TRUE(se);
    EXPECT_NEAR(*se, 0.62665, 1e-9);
    EXPECT_FALSE(fixedAt(100).medianStandardError());
    EXPECT_FALSE(spread(100, 95, 107.815, 0).medianStandardError());
    EXPECT_FALSE(spread(100, 110, 90, 100).medianStandardError());  // p10 above p90: no spread
}

// Loops without any spread: every resample equals the point, and the winner says it is fixed.
TEST(ExactProjection, WithoutSpreadTheIntervalIsThePoint) {
    const ExactProjection x = computeExactProjection(fourProblems());
    EXPECT_TRUE(x.problems[0].fixedInBootstrap);
    EXPECT_NEAR(x.savedInterval.lo, x.savedShare, 1e-12);
    EXPECT_NEAR(x.savedInterval.hi, x.savedShare, 1e-12);
    EXPECT_NEAR(x.endToEndInterval.lo, x.endToEndSpeedup, 1e-12);
}

// One winner on half the GPU time, candidate 50 us (se 0.5 us), eager 100 us (se 1.0 us):
// saved = 0.5 (1 - 50/100) = 0.25. By the delta method its standard deviation is
// 0.5 sqrt((0.5/100)^2 + (50 x 1.0 / 100^2)^2) = 0.5 sqrt(2.5e-5 + 2.5e-5) = 0.0035355, so the
// 95 % interval is about 0.25 -+ 1.96 x 0.0035355 = [0.24307, 0.25693].
// p10/p90 that give those errors at 100 repetitions: sd_c = 0.5 x 10 / 1.2533 = 3.98947,
// p90 - p10 = 2.563 sd_c = 10.2250; sd_e = 7.97893, p90 - p10 = 20.4500.
TEST(ExactProjection, ParametricBootstrapMatchesTheDeltaMethod) {
    ExactProjectionInput in;
    in.problems = {
        problem(0.5, ChosenResult{spread(50, 45, 55.2250, 100), spread(100, 90, 110.4500, 100)})};
    ExactProjectionOptions o;
    o.resamples = 20000;
    const ExactProjection x = computeExactProjection(in, o);
    EXPECT_NEAR(x.savedShare, 0.25, 1e-12);
    EXPECT_FALSE(x.problems[0].fixedInBootstrap);
    const double half = 1.96 * 0.0035355;
    // Monte-Carlo error of a 2.5 % quantile at 20000 draws is about 1 % of the half width.
    EXPECT_NEAR(x.savedInterval.lo, 0.25 - half, 0.05 * half);
    EXPECT_NEAR(x.savedInterval.hi, 0.25 + half, 0.05 * half);
    // The speedup's interval is the saved share's, mapped: 1 / (1 - lo), 1 / (1 - hi).
    EXPECT_NEAR(x.endToEndInterval.lo, 1 / (1 - x.savedInterval.lo), 1e-12);
    EXPECT_NEAR(x.endToEndInterval.hi, 1 / (1 - x.savedInterval.hi), 1e-12);
    // A fixed seed: the same interval every time; another seed, another draw.
    const ExactProjection again = computeExactProjection(in, o);
    EXPECT_EQ(again.savedInterval.lo, x.savedInterval.lo);
    EXPECT_EQ(again.savedInterval.hi, x.savedInterval.hi);
    o.seed += 1;
    EXPECT_NE(computeExactProjection(in, o).savedInterval.lo, x.savedInterval.lo);
}

// Per-repetition times win over p10/p90: 99 repetitions of 40 us and one of 1000 us have a
// median of 40 us in every resample (half of a resample would have to be the outlier), while
// their p10..p90 claimed here (10..1000 us) would give a wide normal draw.
TEST(ExactProjection, RepetitionsAreResampledWhenTheDocumentHasThem) {
    TimedLoop candidate = spread(40, 10, 1000, 100);
    candidate.samplesUs.assign(99, 40.0);
    candidate.samplesUs.push_back(1000.0);
    TimedLoop eager = spread(100, 10, 1000, 100);
    eager.samplesUs.assign(100, 100.0);
    ExactProjectionInput in;
    in.problems = {problem(0.3, ChosenResult{candidate, eager})};
    const ExactProjection x = computeExactProjection(in);
    EXPECT_NEAR(x.savedShare, 0.18, 1e-12);
    EXPECT_NEAR(x.savedInterval.lo, 0.18, 1e-12);
    EXPECT_NEAR(x.savedInterval.hi, 0.18, 1e-12);
}

// Issue 37, item 9: every repetition of every winner was resampled 2000 times (12 MB of
// documents: 108 s). Loops of 100,000 repetitions would be 4 x 10^5 draws a resample, far past
// the budget: each draws its median from a normal with the repetitions' order-statistic standard
// error instead, and the asked resamples are kept. Repetitions spread evenly over 90..110 us have
// a median of 100 and a median's standard error of 20 / (2 sqrt(n)) = 0.0316 us, tiny: the
// interval sits on the point.
TEST(ExactProjection, LoopsOfManyRepetitionsStayWithinTheBootstrapsWorkBound) {
    auto evenly = [](double lo, double hi, int n) {
        TimedLoop t;
        for (int i = 0; i < n; ++i)
            t.samplesUs.push_back(lo + (hi - lo) * ((i * 7919) % n) / n);
        t.medianUs = (lo + hi) / 2;
        t.reps = n;
        return t;
    };
    ExactProjectionInput in;
    const TimedLoop candidate = evenly(40, 60, 100000), eager = evenly(90, 110, 100000);
    in.problems = {problem(0.3, ChosenResult{candidate, eager}),
                   problem(0.2, ChosenResult{candidate, eager})};
    const ExactProjection x = computeExactProjection(in);
    EXPECT_EQ(x.loopsDrawnNormal, 4);
    EXPECT_EQ(x.resamples, 2000);
    // saved = 0.5 (1 - 50/100) = 0.25
    EXPECT_NEAR(x.savedShare, 0.25, 1e-12);
    EXPECT_NEAR(x.savedInterval.lo, 0.25, 1e-3);
    EXPECT_NEAR(x.savedInterval.hi, 0.25, 1e-3);
    EXPECT_LT(x.savedInterval.lo, x.savedInterval.hi);

    // A few repetitions are resampled as before.
    in.problems = {problem(0.3, ChosenResult{evenly(40, 60, 50), evenly(90, 110, 50)})};
    const ExactProjection small = computeExactProjection(in);
    EXPECT_EQ(small.loopsDrawnNormal, 0);
    EXPECT_EQ(small.resamples, 2000);

    // 2000 winners of 29 repetitions each (116,000 draws a resample) are never switched (too
    // few for a normal): fewer resamples instead, here the fewest.
    in.problems.assign(2000,
                       problem(0.0001, ChosenResult{evenly(40, 60, 29), evenly(90, 110, 29)}));
    const ExactProjection many = computeExactProjection(in);
    EXPECT_EQ(many.loopsDrawnNormal, 0);
    EXPECT_EQ(many.resamples, kBootstrapMinResamples);
}

// A slower candidate is never drawn into the interval, however wide its spread: the problem
// stays at its baseline. A winner's draw where the candidate comes out slower saves nothing,
// never a negative amount.
TEST(ExactProjection, SlowerCandidatesStayAtBaselineInEveryResample) {
    ExactProjectionInput in;
    in.problems = {problem(0.4, ChosenResult{spread(101, 1, 1000, 3), spread(100, 1, 1000, 3)})};
    ExactProjection x = computeExactProjection(in);
    EXPECT_EQ(x.savedInterval.lo, 0);
    EXPECT_EQ(x.savedInterval.hi, 0);
    // A barely faster candidate with a wide spread: about half its draws are slower (they save
    // 0), so the interval starts at 0 and never below.
    in.problems = {problem(0.4, ChosenResult{spread(99, 50, 150, 3), spread(100, 50, 150, 3)})};
    x = computeExactProjection(in);
    EXPECT_TRUE(x.problems[0].winner);
    EXPECT_EQ(x.savedInterval.lo, 0);
    EXPECT_GT(x.savedInterval.hi, x.savedShare);
    EXPECT_LE(x.savedInterval.hi, 0.4);
}

// Speed of light: the covered problems' roofline savings add up (0.25 + 0.005 + 0.005 = 0.26,
// bound 1 / 0.74 = 1.3513514) over the problems with an estimate (30 % + 5 % + 2 % of GPU
// time); a winner saving more than its roofline allows (0.0066667 > 0.005) is flagged.
TEST(ExactProjection, SpeedOfLightOfTheCoveredKernels) {
    ExactProjectionInput in = fourProblems();
    in.problems[0].solSavedShare = 0.25;
    in.problems[3].solSavedShare = 0.005;
    in.problems[2].solSavedShare = 0.005;
    in.workloadSolBound = 3.2;
    const ExactProjection x = computeExactProjection(in);
    ASSERT_TRUE(x.coveredSolSavedShare);
    EXPECT_NEAR(*x.coveredSolSavedShare, 0.26, 1e-12);
    EXPECT_NEAR(*x.coveredSolBound(), 1 / 0.74, 1e-12);
    EXPECT_NEAR(x.coveredEstimatedShare, 0.37, 1e-12);
    EXPECT_FALSE(x.problems[0].belowSpeedOfLight);
    EXPECT_FALSE(x.problems[2].belowSpeedOfLight);  // no winner, nothing projected
    EXPECT_TRUE(x.problems[3].belowSpeedOfLight);
    EXPECT_EQ(*x.workloadSolBound, 3.2);
    EXPECT_FALSE(computeExactProjection(fourProblems()).coveredSolSavedShare);
}

TEST(ExactProjection, RefusesInputsThatAreNotShares) {
    ExactProjectionInput in;
    in.problems = {problem(0.7), problem(0.4)};
    EXPECT_THROW(computeExactProjection(in), std::invalid_argument);  // 110 % of the time
    in.problems = {problem(-0.1)};
    EXPECT_THROW(computeExactProjection(in), std::invalid_argument);
    in.problems = {problem(0.1, ChosenResult{fixedAt(0), fixedAt(10)})};
    EXPECT_THROW(computeExactProjection(in), std::invalid_argument);
    in.problems = {problem(0.1)};
    ExactProjectionOptions o;
    o.resamples = 0;
    EXPECT_THROW(computeExactProjection(in, o), std::invalid_argument);
}

}  // namespace reach_test_exactprojection_test
