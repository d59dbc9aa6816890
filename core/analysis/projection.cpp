#include "core/analysis/projection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <limits>
#include <stdexcept>

namespace reach {

namespace {
void requireFraction(double v, const char* what) {
    if (!(v >= 0 && v <= 1)) {
        throw std::invalid_argument(std::string(what) + " must lie in [0, 1], got " +
                                    std::to_string(v));
    }
}
}  // namespace

double WallClock::busyShare() const {
    return spanUs > 0 ? std::min(1.0, busyTimeUs / spanUs) : 0;
}

double WallClock::wallShare(double savedShareOfGpuTime) const {
    if (!known())
        return 0;
    return std::min(savedShareOfGpuTime * gpuTimeUs, busyTimeUs) / spanUs;
}

std::string wallClockWarning(const WallClock& clock) {
    if (!clock.mostlyIdle())
        return {};
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "GPU busy %.1f %% of the profiled span: faster kernels shorten only that part "
                  "of the wall clock",
                  100.0 * clock.busyShare());
    return buf;
}

std::optional<double> Projection::wallSavedShare() const {
    if (!wall || !wall->known())
        return std::nullopt;
    return wall->wallShare(savedShare);
}

std::optional<double> Projection::wallEndToEndSpeedup() const {
    const auto saved = wallSavedShare();
    if (!saved)
        return std::nullopt;
    return reach::endToEndSpeedup(*saved);
}

Projection projectSummary(std::string name, double A, double w, double m,
                          std::optional<WallClock> wall) {
    requireFraction(A, "addressable share");
    requireFraction(w, "win rate");
    if (!(m > 0)) {
        throw std::invalid_argument("median speedup must be > 0, got " + std::to_string(m));
    }
    Projection p;
    p.name = std::move(name);
    p.addressableShare = A;
    p.winRate = w;
    p.medianSpeedup = m;
    p.savedShare = A * w * (1.0 - 1.0 / m);
    p.endToEndSpeedup = endToEndSpeedup(p.savedShare);
    if (wall && wall->known())
        p.wall = wall;
    return p;
}

double amdahlSavedShare(const std::vector<std::pair<double, double>>& shareAndSpeedup) {
    double saved = 0;
    for (const auto& [share, speedup] : shareAndSpeedup) {
        if (!(share >= 0))
            throw std::invalid_argument("a share must be >= 0");
        if (!(speedup > 0))
            throw std::invalid_argument("a speedup must be > 0");
        saved += share * (1.0 - 1.0 / speedup);
    }
    return saved;
}

double endToEndSpeedup(double savedShare) {
    if (savedShare >= 1)
        return std::numeric_limits<double>::infinity();
    return 1.0 / (1.0 - savedShare);
}

std::string projectionAssumptions() {
    return "Projection, not a measurement: saved = A x w x (1 - 1/m) (or sum of s_i x (1 - "
           "1/sigma_i)), end-to-end speedup = 1 / (1 - saved). Assumes problems without a "
           "verified faster kernel keep the baseline at no extra cost, gains on different "
           "operations are independent and add up (Amdahl decomposition), the benchmark's win "
           "rate and median speedup carry over to this workload's addressable kernels, and the "
           "profile's shapes, batch size and GPU are the ones that matter. Of the wall clock: "
           "saved GPU time over the profiled span, idle gaps unchanged. Kernel-name "
           "classification is approximate; the rule set is named beside every figure.";
}

double ProjectionGrid::medianAt(int j) const {
    return std::pow(10.0, (j + 0.5) / cells * std::log10(maxMedian));
}

ProjectionGrid projectionGrid(double addressableShare, int cells, double maxMedian) {
    ProjectionGrid g;
    g.cells = cells;
    g.maxMedian = maxMedian;
    g.gainPercent.resize(size_t(cells) * size_t(cells));
    for (int i = 0; i < cells; ++i) {
        for (int j = 0; j < cells; ++j) {
            const double gain =
                100.0 *
                projectSummary("", addressableShare, g.winRateAt(i), g.medianAt(j)).savedShare;
            g.gainPercent[size_t(i) * size_t(cells) + size_t(j)] = gain;
            g.maxGainPercent = std::max(g.maxGainPercent, gain);
        }
    }
    return g;
}

}  // namespace reach
