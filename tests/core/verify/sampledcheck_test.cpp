// Every timed repetition's output checked at secret positions (core/verify/sampledcheck.h): a
// skipped, stale, half-written or NaN-padded repetition is caught; an honest one is not.
#include "core/verify/sampledcheck.h"

#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "core/verify/oracle.h"

using namespace reach;

namespace {

TensorSpec spec(int64_t n) {
    TensorSpec s;
    s.name = "y";
    s.dtype = DType::F32;
    s.shape = {n};
    return s;
}

struct Case {
    std::vector<HostTensor> out;
    std::vector<std::vector<double>> ref;
    std::vector<double> maxAbs;
    SamplePositions at;
};

// An output of n elements equal to its reference (sin i), positions drawn from seed.
Case honest(int64_t n, int64_t perOutput, uint64_t seed = 1) {
    Case c;
    HostTensor t(spec(n));
    std::vector<double> r(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        r[size_t(i)] = std::sin(double(i));
        t.set(i, r[size_t(i)]);
    }
    c.out.push_back(std::move(t));
    c.ref.push_back(std::move(r));
    c.maxAbs = finiteMaxAbs(c.ref);
    std::mt19937_64 rng(seed);
    c.at = drawSamplePositions({spec(n)}, rng, perOutput);
    return c;
}

std::optional<std::string> check(const Case& c) {
    return checkSamples(c.out, c.ref, c.maxAbs, c.at, Thresholds{});
}

}  // namespace

TEST(SampledCheck, PositionsAreDistinctInRangeAndAllOfASmallOutput) {
    std::mt19937_64 rng(3);
    const SamplePositions s = drawSamplePositions({spec(10), spec(1000000)}, rng, 4096);
    ASSERT_EQ(s.perOutput.size(), 2u);
    EXPECT_EQ(std::set<int64_t>(s.perOutput[0].begin(), s.perOutput[0].end()).size(), 10u);
    const std::set<int64_t> big(s.perOutput[1].begin(), s.perOutput[1].end());
    EXPECT_EQ(big.size(), 4096u);
    EXPECT_GE(*big.begin(), 0);
    EXPECT_LT(*big.rbegin(), 1000000);
    // Spread over the whole output, late elements included (a half-written output shows).
    EXPECT_GT(std::count_if(big.begin(), big.end(), [](int64_t i) { return i >= 500000; }), 1800);
    std::mt19937_64 other(4);
    EXPECT_NE(drawSamplePositions({spec(1000000)}, other, 4096).perOutput[0], s.perOutput[1]);
}

TEST(SampledCheck, AnHonestRepetitionPasses) {
    EXPECT_EQ(check(honest(200000, 65536)), std::nullopt);
    EXPECT_EQ(check(honest(7, 65536)), std::nullopt);
}

TEST(SampledCheck, AHalfWrittenOutputIsNeverWritten) {
    Case c = honest(200000, 65536);
    for (int64_t i = 100000; i < 200000; ++i)  // the second half still holds the sentinel
        for (size_t k = 0; k < 4; ++k)
            c.out[0].bytes[size_t(i) * 4 + k] = kSentinelByte;
    const auto why = check(c);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("never written"), std::string::npos) << *why;
}

TEST(SampledCheck, AStaleRepetitionIsCaught) {
    // The output of another input set (a cache keyed on anything but the data).
    Case c = honest(200000, 65536);
    for (int64_t i = 0; i < 200000; ++i)
        c.out[0].set(i, std::cos(double(i)));
    const auto why = check(c);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("sampled error"), std::string::npos) << *why;
}

TEST(SampledCheck, NanIsNeverAWildcard) {
    Case c = honest(1000, 65536);
    c.out[0].set(17, std::numeric_limits<double>::quiet_NaN());
    const auto why = check(c);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("NaN or Inf"), std::string::npos) << *why;
    // Where the reference itself is NaN, NaN is the answer; Inf must match in sign.
    Case d = honest(1000, 65536);
    d.ref[0][5] = std::numeric_limits<double>::quiet_NaN();
    d.out[0].set(5, std::numeric_limits<double>::quiet_NaN());
    d.ref[0][6] = INFINITY;
    d.out[0].set(6, INFINITY);
    d.maxAbs = finiteMaxAbs(d.ref);
    EXPECT_EQ(check(d), std::nullopt);
    d.out[0].set(6, -INFINITY);
    EXPECT_TRUE(check(d).has_value());
}

TEST(SampledCheck, ASmallErrorWithinTheThresholdsPasses) {
    Case c = honest(100000, 65536);
    for (int64_t i = 0; i < 100000; ++i)
        c.out[0].set(i, c.ref[0][size_t(i)] * (1 + 1e-5));
    EXPECT_EQ(check(c), std::nullopt);
}
