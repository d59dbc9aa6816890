#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace reach {

// Small statistics for speedups and shares. Empty input (and, for geomean, a value <= 0)
// throws std::invalid_argument: a summary of nothing must not look like a number.

double median(std::vector<double> values);  // mean of the two middle values for an even count
double mean(const std::vector<double>& values);
double geomean(const std::vector<double>& values);
// Linear interpolation between order statistics (the "type 7" quantile of R and numpy).
double quantile(std::vector<double> values, double q);
// Share of values strictly above threshold (a speedup > 1 is a win).
double winRate(const std::vector<double>& speedups, double threshold = 1.0);

// Draws that depend only on std::mt19937_64's output (fully specified), never on a library's
// distribution algorithms, so a seed gives the same numbers on every platform.
// A uniform index in [0, n) by rejection (no modulo bias); n > 0.
size_t drawIndex(std::mt19937_64& rng, size_t n);
// A standard normal draw (Box-Muller on two 53-bit uniforms; one of the pair is dropped, so
// each call consumes exactly two engine outputs).
double drawStandardNormal(std::mt19937_64& rng);

struct Interval {
    double lo = 0;
    double hi = 0;
};

// What a bootstrap may draw (docs/limits.md, "Bootstraps"): its cost is resamples x draws per
// resample, and the units come from a stranger's file (10,000 resamples of 100,000 leaderboard
// rows took 40 s). A bootstrap takes fewer resamples than asked when their draws would pass
// kBootstrapDrawBudget, never fewer than kBootstrapMinResamples: up to budget / 200 = 83,886
// units the work is bounded outright, past that it is 200 draws a unit, linear in the input as
// reading it is. Fewer resamples widen the Monte-Carlo error of the interval's ends, not its
// level; the callers report the count used.
inline constexpr long long kBootstrapDrawBudget = 1LL << 24;  // about 0.2 s of draws
inline constexpr int kBootstrapMinResamples = 200;
// The resamples a bootstrap makes when `requested` are asked for and each draws
// `drawsPerResample` values: min(requested, max(kBootstrapMinResamples, budget / draws)).
int bootstrapResamples(int requested, size_t drawsPerResample);

// The standard error of a sample's median from the sample alone, without assuming its shape
// (McKean and Schrader, 1984): the distance between the order statistics c and n - c + 1,
// c = (n + 1) / 2 - 1.96 sqrt(n / 4), over 2 x 1.96. What the median of a bootstrap resample
// varies by, for a large sample, at O(n) once instead of O(n) per resample. n >= 2.
double orderStatisticMedianError(std::vector<double> sample);

// Percentile bootstrap: resample the sample with replacement, apply the statistic, and take the
// (1-level)/2 and (1+level)/2 quantiles; bootstrapResamples(resamples, sample.size()) resamples
// (the work bound above). Reproducible for a given seed on every platform: indices come from
// std::mt19937_64 (fully specified) by rejection sampling, not from
// std::uniform_int_distribution (whose algorithm is library-specific).
Interval bootstrapInterval(const std::vector<double>& sample,
                           const std::function<double(const std::vector<double>&)>& statistic,
                           int resamples, uint64_t seed, double level = 0.95);

}  // namespace reach
