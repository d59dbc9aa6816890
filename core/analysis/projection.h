#pragma once

#include <string>
#include <utility>
#include <vector>

namespace reach {

// The study's summary projection (DOMAIN.md): saved = A * w * (1 - 1/m), where A is the
// addressable share of GPU time, w the win rate and m the median speedup of the winners.
struct Projection {
    std::string name;
    double addressableShare = 0;
    double winRate = 0;
    double medianSpeedup = 1;
    double savedShare = 0;       // share of the original GPU time saved
    double endToEndSpeedup = 1;  // 1 / (1 - savedShare)
};

// Throws std::invalid_argument when m <= 0 or a share/rate lies outside [0,1].
Projection projectSummary(std::string name, double A, double w, double m);

// Exact Amdahl decomposition: sum_i s_i * (1 - 1/sigma_i) over (share, speedup) pairs.
// Throws std::invalid_argument when a speedup is <= 0 or a share is negative.
double amdahlSavedShare(const std::vector<std::pair<double, double>>& shareAndSpeedup);

// 1 / (1 - saved); +infinity when saved >= 1.
double endToEndSpeedup(double savedShare);

// The assumptions every projected number rests on, to be shown next to it.
std::string projectionAssumptions();

}  // namespace reach
