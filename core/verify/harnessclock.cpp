#include "core/verify/harnessclock.h"

#include <algorithm>
#include <cmath>

namespace reach {

namespace {

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double stretchOf(const RepetitionClock& c, size_t i) {
    return i < c.stretchUs.size() ? c.stretchUs[i] : 0.0;
}

}  // namespace

HarnessCalibration calibrateHarness(const RepetitionClock& trusted, bool gpu) {
    HarnessCalibration cal;
    if (gpu && !trusted.stretchUs.empty()) {
        cal.stretchUs = median(trusted.stretchUs);
        std::vector<double> dev;
        for (double s : trusted.stretchUs)
            dev.push_back(std::fabs(s - cal.stretchUs));
        cal.stretchToleranceUs = std::max(2.0, 3.0 * median(dev));
    }
    const std::vector<double> w = judgeWindows(trusted, cal);
    std::vector<double> gaps;
    for (size_t i = 0; i < w.size() && i < trusted.claimUs.size(); ++i)
        gaps.push_back(w[i] - trusted.claimUs[i]);
    cal.gapUs = median(gaps);
    cal.reps = int(w.size());
    return cal;
}

std::vector<double> judgeWindows(const RepetitionClock& loop, const HarnessCalibration& cal) {
    std::vector<double> out;
    for (size_t i = 0; i < loop.totalUs.size(); ++i) {
        const double st = stretchOf(loop, i);
        out.push_back(loop.totalUs[i] - st +
                      std::max(0.0, st - cal.stretchUs - cal.stretchToleranceUs));
    }
    return out;
}

std::vector<double> judgeFigures(const RepetitionClock& loop, const HarnessCalibration& cal,
                                 bool hostClock) {
    std::vector<double> f = judgeWindows(loop, cal);
    for (size_t i = 0; i < f.size(); ++i) {
        // A window shorter than the gap is a call below the judge's resolution (or none at all):
        // 0, never a negative time.
        f[i] = std::max(0.0, f[i] - cal.gapUs);
        if (hostClock && i < loop.claimUs.size())
            f[i] = std::max(f[i], loop.claimUs[i]);
    }
    return f;
}

}  // namespace reach
