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

// Percentile bootstrap: resample the sample with replacement `resamples` times, apply the
// statistic, and take the (1-level)/2 and (1+level)/2 quantiles. Reproducible for a given seed
// on every platform: indices come from std::mt19937_64 (fully specified) by rejection
// sampling, not from std::uniform_int_distribution (whose algorithm is library-specific).
Interval bootstrapInterval(const std::vector<double>& sample,
                           const std::function<double(const std::vector<double>&)>& statistic,
                           int resamples, uint64_t seed, double level = 0.95);

}  // namespace reach
