#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/statistics.h"

namespace reach_test_statistics_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(Statistics, MedianOddEvenAndUnsorted) {
    EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    EXPECT_DOUBLE_EQ(median({1.552}), 1.552);
    EXPECT_DOUBLE_EQ(median({5, 5, 1, 9}), 5);
    EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Statistics, GeomeanMeanQuantileWinRate) {
    EXPECT_NEAR(geomean({1, 4, 16}), 4, 1e-12);
    EXPECT_NEAR(geomean({2, 8}), 4, 1e-12);
    EXPECT_THROW(geomean({1, 0}), std::invalid_argument);
    EXPECT_DOUBLE_EQ(mean({1, 2, 6}), 3);
    // numpy.quantile([1, 2, 3, 4], 0.25) == 1.75 (linear interpolation)
    EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 0.25), 1.75);
    EXPECT_DOUBLE_EQ(quantile({4, 3, 2, 1}, 1.0), 4);
    EXPECT_DOUBLE_EQ(quantile({10, 20}, 0.5), 15);
    // DLRM-Bench: 5 of 12 faster -> 41.7%; equal is not a win.
    std::vector<double> s = {1.1, 1.3, 1.552, 2.0, 6.917, 1.0, 0.9, 0.8, 0.7, 0.95, 0.99, 0.5};
    EXPECT_NEAR(winRate(s), 5.0 / 12, 1e-15);
    EXPECT_DOUBLE_EQ(median({1.1, 1.3, 1.552, 2.0, 6.917}), 1.552);
}

TEST(Statistics, BootstrapIsReproducibleAndBracketsTheStatistic) {
    const std::vector<double> winners = {1.1, 1.3, 1.552, 2.0, 6.917};
    auto med = [](const std::vector<double>& v) { return median(v); };
    Interval a = bootstrapInterval(winners, med, 2000, 42);
    Interval b = bootstrapInterval(winners, med, 2000, 42);
    EXPECT_EQ(a.lo, b.lo);
    EXPECT_EQ(a.hi, b.hi);
    // A median of five resampled values is always one of the sample values.
    EXPECT_LE(a.lo, 1.552);
    EXPECT_GE(a.hi, 1.552);
    EXPECT_GE(a.lo, 1.1);
    EXPECT_LE(a.hi, 6.917);
    // With 5 winners the interval is wide: from the 2nd-smallest or below to the 4th or above.
    EXPECT_LE(a.lo, 1.3);
    EXPECT_GE(a.hi, 2.0);
    // A constant sample has a zero-width interval.
    Interval c = bootstrapInterval({2, 2, 2}, med, 100, 7);
    EXPECT_EQ(c.lo, 2);
    EXPECT_EQ(c.hi, 2);
    // One resample of a one-element sample: that element.
    Interval d = bootstrapInterval({3.5}, med, 1, 1);
    EXPECT_EQ(d.lo, 3.5);
    EXPECT_THROW(bootstrapInterval({}, med, 10, 1), std::invalid_argument);
    EXPECT_THROW(bootstrapInterval(winners, med, 0, 1), std::invalid_argument);
}

TEST(Statistics, BootstrapOfTheMeanMatchesTheNormalApproximation) {
    // 200 values 0..199: mean 99.5, sd of the mean = sqrt((n^2-1)/12 / n) ~= 4.08; a 95%
    // percentile interval is about 99.5 +- 8.0. Hand-computed, checked loosely (+-1.2).
    std::vector<double> v;
    for (int i = 0; i < 200; ++i)
        v.push_back(i);
    Interval iv = bootstrapInterval(
        v, [](const std::vector<double>& x) { return mean(x); }, 4000, 2026);
    const double halfWidth = 1.96 * std::sqrt((200.0 * 200.0 - 1) / 12.0 / 200.0);
    EXPECT_NEAR(iv.lo, 99.5 - halfWidth, 1.2);
    EXPECT_NEAR(iv.hi, 99.5 + halfWidth, 1.2);
}

// Issue 37, item 10: 10,000 resamples of 100,000 leaderboard rows were 10^9 draws (40 s). The
// work is resamples x units, so a large sample gets fewer resamples: never more draws than the
// budget while at least kBootstrapMinResamples fit, and the asked count where it fits.
TEST(BootstrapBound, ResamplesTimesUnitsStayWithinTheBudget) {
    EXPECT_EQ(bootstrapResamples(10000, 1000), 10000);  // 10^7 draws: as asked
    EXPECT_EQ(bootstrapResamples(10000, 10000), int(kBootstrapDrawBudget / 10000));
    EXPECT_EQ(bootstrapResamples(10000, 100000), kBootstrapMinResamples);
    EXPECT_EQ(bootstrapResamples(50, 100000), 50);  // never more than asked
    EXPECT_EQ(bootstrapResamples(10000, 0), 10000);

    std::vector<double> big(100000);
    for (size_t i = 0; i < big.size(); ++i)
        big[i] = double(i % 977);
    int calls = 0;
    const Interval iv = bootstrapInterval(
        big,
        [&calls](const std::vector<double>& x) {
            ++calls;
            return mean(x);
        },
        10000, 7);
    EXPECT_EQ(calls, kBootstrapMinResamples);
    EXPECT_LE(iv.lo, mean(big));
    EXPECT_GE(iv.hi, mean(big));
}

// The median's standard error without a shape (McKean-Schrader): for n values spread evenly
// over 0..n, density 1/n at the median, the median's standard error is 1 / (2 f sqrt(n)) =
// sqrt(n) / 2 = 50 for n = 10,000.
TEST(BootstrapBound, OrderStatisticMedianErrorMatchesTheTheory) {
    std::vector<double> v;
    for (int i = 0; i < 10000; ++i)
        v.push_back((i * 7919) % 10000);  // every value once, not in order
    EXPECT_NEAR(orderStatisticMedianError(v), 50.0, 2.5);
    EXPECT_EQ(orderStatisticMedianError({3, 3, 3, 3}), 0.0);
    EXPECT_THROW(orderStatisticMedianError({1}), std::invalid_argument);
}

}  // namespace reach_test_statistics_test
