#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reach {

// Below this share of the profiled span busy, faster kernels barely move the wall clock, and
// every projection says so next to its number.
inline constexpr double kLowBusyShare = 0.5;

// The study's DLRM-Bench summary, as every projection of the study used it (DOMAIN.md: "A *
// 0.417 * (1 - 1/1.552)"): 5 of 12 problems faster, rounded to 0.417, median 1.552x. The GUI's
// default and preset and `reach-cli figure projection`'s default are these two numbers.
inline constexpr double kDlrmBenchWinRate = 0.417;
inline constexpr double kDlrmBenchMedianSpeedup = 1.552;

// A profile's clock, for the second basis of every projection: the GPU time saved as a share of
// the profiled wall clock, assuming the idle gaps (CPU work, launch latency, data loading) stay
// as they are: saved_wall = saved_gpu_time / span. Published rows have no span (no WallClock).
struct WallClock {
    double gpuTimeUs = 0;   // summed kernel/memcpy/memset time: what saved shares are of
    double busyTimeUs = 0;  // union of GPU intervals
    double spanUs = 0;      // profiled span

    bool known() const { return spanUs > 0 && gpuTimeUs > 0; }
    double busyShare() const;  // busy / span
    bool mostlyIdle() const { return known() && busyShare() < kLowBusyShare; }
    // Saved GPU time (a share of gpuTimeUs) as a share of the span. Overlapping streams can make
    // gpuTimeUs exceed busy time; the wall clock cannot shrink by more than the busy time.
    double wallShare(double savedShareOfGpuTime) const;
};

// "GPU busy 13.2 % of the profiled span: ..." when mostly idle, else empty.
std::string wallClockWarning(const WallClock& clock);

// The study's summary projection (DOMAIN.md): saved = A * w * (1 - 1/m), where A is the
// addressable share of GPU time, w the win rate and m the median speedup of the winners.
struct Projection {
    std::string name;
    double addressableShare = 0;
    double winRate = 0;
    double medianSpeedup = 1;
    double savedShare = 0;       // share of the original GPU time saved
    double endToEndSpeedup = 1;  // 1 / (1 - savedShare)
    // The same saving on the profiled wall clock; empty for rows without a span (published).
    std::optional<WallClock> wall;
    std::optional<double> wallSavedShare() const;
    std::optional<double> wallEndToEndSpeedup() const;
};

// Throws std::invalid_argument when m <= 0 or a share/rate lies outside [0,1].
Projection projectSummary(std::string name, double A, double w, double m,
                          std::optional<WallClock> wall = std::nullopt);

// Exact Amdahl decomposition: sum_i s_i * (1 - 1/sigma_i) over (share, speedup) pairs.
// Throws std::invalid_argument when a speedup is <= 0 or a share is negative.
double amdahlSavedShare(const std::vector<std::pair<double, double>>& shareAndSpeedup);

// 1 / (1 - saved); +infinity when saved >= 1.
double endToEndSpeedup(double savedShare);

// The projected gain (percent of GPU time saved) of one workload over a grid of (win rate,
// median speedup): cells x cells points, win rate from 0 to 1 and log10(median) from 0 to
// log10(maxMedian), at cell centres. The heat map draws it; tests check it against the formula.
struct ProjectionGrid {
    int cells = 0;
    double maxMedian = 10;
    std::vector<double> gainPercent;  // [winIndex * cells + medianIndex]
    double maxGainPercent = 0;
    double winRateAt(int i) const { return (i + 0.5) / cells; }
    double medianAt(int j) const;
    double at(int i, int j) const { return gainPercent[size_t(i) * size_t(cells) + size_t(j)]; }
};
ProjectionGrid projectionGrid(double addressableShare, int cells, double maxMedian = 10);

// The assumptions every projected number rests on, to be shown next to it.
std::string projectionAssumptions();

}  // namespace reach
