#include "core/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace reach {

namespace {

void requireNonEmpty(const std::vector<double>& v, const char* what) {
    if (v.empty())
        throw std::invalid_argument(std::string(what) + " of an empty sample");
}

}  // namespace

size_t drawIndex(std::mt19937_64& rng, size_t n) {
    const uint64_t range = static_cast<uint64_t>(n);
    const uint64_t limit =
        std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
    uint64_t x;
    do {
        x = rng();
    } while (x >= limit);
    return static_cast<size_t>(x % range);
}

double drawStandardNormal(std::mt19937_64& rng) {
    // The top 53 bits as a double in (0, 1]: log(u1) stays finite.
    const double u1 = (double(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = double(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double median(std::vector<double> values) {
    requireNonEmpty(values, "median");
    const size_t n = values.size();
    auto mid = values.begin() + static_cast<ptrdiff_t>(n / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (n % 2 == 1)
        return *mid;
    const double upper = *mid;
    const double lower = *std::max_element(values.begin(), mid);
    return (lower + upper) / 2;
}

double mean(const std::vector<double>& values) {
    requireNonEmpty(values, "mean");
    double s = 0;
    for (double v : values)
        s += v;
    return s / static_cast<double>(values.size());
}

double geomean(const std::vector<double>& values) {
    requireNonEmpty(values, "geomean");
    double logSum = 0;
    for (double v : values) {
        if (!(v > 0))
            throw std::invalid_argument("geomean needs values > 0");
        logSum += std::log(v);
    }
    return std::exp(logSum / static_cast<double>(values.size()));
}

double quantile(std::vector<double> values, double q) {
    requireNonEmpty(values, "quantile");
    if (!(q >= 0 && q <= 1))
        throw std::invalid_argument("quantile q must lie in [0, 1]");
    std::sort(values.begin(), values.end());
    const double pos = q * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    const double t = pos - static_cast<double>(lo);
    return values[lo] + t * (values[hi] - values[lo]);
}

double winRate(const std::vector<double>& speedups, double threshold) {
    requireNonEmpty(speedups, "win rate");
    size_t wins = 0;
    for (double s : speedups)
        wins += s > threshold ? 1 : 0;
    return static_cast<double>(wins) / static_cast<double>(speedups.size());
}

int bootstrapResamples(int requested, size_t drawsPerResample) {
    const long long perResample = std::max<long long>(1, static_cast<long long>(drawsPerResample));
    const long long fit = kBootstrapDrawBudget / perResample;
    return static_cast<int>(
        std::min<long long>(requested, std::max<long long>(kBootstrapMinResamples, fit)));
}

double orderStatisticMedianError(std::vector<double> sample) {
    if (sample.size() < 2)
        throw std::invalid_argument("the median's standard error needs at least two values");
    constexpr double z = 1.96;
    const double n = static_cast<double>(sample.size());
    // 1-based rank c, at least 1; the pair (c, n - c + 1) brackets the median.
    const double rank = std::round((n + 1) / 2 - z * std::sqrt(n / 4));
    const size_t c = static_cast<size_t>(std::max(1.0, rank)) - 1;
    const size_t d = sample.size() - 1 - c;
    std::nth_element(sample.begin(), sample.begin() + static_cast<ptrdiff_t>(c), sample.end());
    const double lo = sample[c];
    std::nth_element(sample.begin() + static_cast<ptrdiff_t>(c),
                     sample.begin() + static_cast<ptrdiff_t>(d), sample.end());
    return (sample[d] - lo) / (2 * z);
}

Interval bootstrapInterval(const std::vector<double>& sample,
                           const std::function<double(const std::vector<double>&)>& statistic,
                           int resamples, uint64_t seed, double level) {
    requireNonEmpty(sample, "bootstrap");
    if (resamples < 1)
        throw std::invalid_argument("bootstrap needs at least one resample");
    if (!(level > 0 && level < 1))
        throw std::invalid_argument("level must lie in (0, 1)");
    resamples = bootstrapResamples(resamples, sample.size());
    std::mt19937_64 rng(seed);
    std::vector<double> stats;
    stats.reserve(static_cast<size_t>(resamples));
    std::vector<double> draw(sample.size());
    for (int r = 0; r < resamples; ++r) {
        for (double& d : draw)
            d = sample[drawIndex(rng, sample.size())];
        stats.push_back(statistic(draw));
    }
    const double alpha = (1 - level) / 2;
    return Interval{quantile(stats, alpha), quantile(stats, 1 - alpha)};
}

}  // namespace reach
