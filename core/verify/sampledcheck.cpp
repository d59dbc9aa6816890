#include "core/verify/sampledcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "core/verify/oracle.h"

namespace reach {

SamplePositions drawSamplePositions(const std::vector<TensorSpec>& outputs, std::mt19937_64& rng,
                                    int64_t perOutput) {
    SamplePositions s;
    for (const TensorSpec& spec : outputs) {
        const int64_t n = spec.numel();
        std::vector<int64_t> idx;
        if (n <= perOutput) {
            for (int64_t i = 0; i < n; ++i)
                idx.push_back(i);
        } else {
            std::unordered_set<int64_t> seen;
            std::uniform_int_distribution<int64_t> pick(0, n - 1);
            while (int64_t(idx.size()) < perOutput) {
                const int64_t i = pick(rng);
                if (seen.insert(i).second)
                    idx.push_back(i);
            }
        }
        s.perOutput.push_back(std::move(idx));
    }
    return s;
}

std::vector<double> finiteMaxAbs(const std::vector<std::vector<double>>& reference) {
    std::vector<double> out;
    for (const auto& r : reference) {
        double m = 0;
        for (double v : r)
            if (std::isfinite(v))
                m = std::max(m, std::fabs(v));
        out.push_back(m);
    }
    return out;
}

std::optional<std::string> checkSamples(const std::vector<HostTensor>& outputs,
                                        const std::vector<std::vector<double>>& reference,
                                        const std::vector<double>& maxAbsReference,
                                        const SamplePositions& positions,
                                        const Thresholds& thresholds) {
    char b[200];
    for (size_t k = 0; k < outputs.size() && k < reference.size() && k < positions.perOutput.size();
         ++k) {
        int64_t unwritten = 0, bad = 0;
        double err2 = 0, ref2 = 0, maxErr = 0;
        for (int64_t i : positions.perOutput[k]) {
            if (isSentinel(outputs[k], i)) {
                ++unwritten;
                continue;
            }
            const double o = outputs[k].at(i), r = reference[k][size_t(i)];
            if (!std::isfinite(r)) {
                bad += !(std::isnan(r) ? std::isnan(o) : o == r);
                continue;
            }
            if (!std::isfinite(o)) {
                ++bad;
                continue;
            }
            err2 += (o - r) * (o - r);
            ref2 += r * r;
            maxErr = std::max(maxErr, std::fabs(o - r));
        }
        const size_t n = positions.perOutput[k].size();
        if (unwritten) {
            std::snprintf(b, sizeof b,
                          "%lld of %zu sampled elements of output %zu were never written",
                          (long long)unwritten, n, k);
            return std::string(b);
        }
        if (bad) {
            std::snprintf(b, sizeof b,
                          "%lld sampled elements of output %zu are NaN or Inf where the reference "
                          "is finite",
                          (long long)bad, k);
            return std::string(b);
        }
        const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
        const double m = k < maxAbsReference.size() ? maxAbsReference[k] : 0;
        const double nmax = m > 0 ? maxErr / m : (maxErr > 0 ? INFINITY : 0.0);
        if (!(rel <= thresholds.relFrobenius && nmax <= thresholds.normMaxError)) {
            std::snprintf(b, sizeof b,
                          "sampled error %.3g (relative), %.3g (of max|ref|) against limits %.3g "
                          "and %.3g",
                          rel, nmax, thresholds.relFrobenius, thresholds.normMaxError);
            return std::string(b);
        }
    }
    return std::nullopt;
}

}  // namespace reach
