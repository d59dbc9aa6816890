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

namespace {

// One output's sampled elements: element j of the sample is outputs.at(at(j)) against ref(j).
template <typename At, typename Ref>
std::optional<std::string> checkOutput(const HostTensor& output, size_t k, size_t n, At at, Ref ref,
                                       double maxAbs, const Thresholds& thresholds) {
    char b[200];
    int64_t unwritten = 0, bad = 0;
    double err2 = 0, ref2 = 0, maxErr = 0;
    for (size_t j = 0; j < n; ++j) {
        const int64_t i = at(j);
        if (isSentinel(output, i)) {
            ++unwritten;
            continue;
        }
        const double o = output.at(i), r = ref(j);
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
    if (unwritten) {
        std::snprintf(b, sizeof b, "%lld of %zu sampled elements of output %zu were never written",
                      (long long)unwritten, n, k);
        return std::string(b);
    }
    if (bad) {
        std::snprintf(b, sizeof b,
                      "%lld sampled elements of output %zu are NaN or Inf where the reference is "
                      "finite",
                      (long long)bad, k);
        return std::string(b);
    }
    const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
    const double nmax = maxAbs > 0 ? maxErr / maxAbs : (maxErr > 0 ? INFINITY : 0.0);
    if (!(rel <= thresholds.relFrobenius && nmax <= thresholds.normMaxError)) {
        std::snprintf(b, sizeof b,
                      "sampled error %.3g (relative), %.3g (of max|ref|) against limits %.3g and "
                      "%.3g",
                      rel, nmax, thresholds.relFrobenius, thresholds.normMaxError);
        return std::string(b);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> checkGathered(const std::vector<HostTensor>& gathered,
                                         const std::vector<std::vector<double>>& want,
                                         const Thresholds& thresholds) {
    for (size_t k = 0; k < gathered.size() && k < want.size(); ++k) {
        const std::vector<double>& w = want[k];
        const double maxAbs = finiteMaxAbs({w}).front();
        const size_t n = std::min(size_t(gathered[k].numel()), w.size());
        if (auto bad = checkOutput(
                gathered[k], k, n, [](size_t j) { return int64_t(j); },
                [&](size_t j) { return w[j]; }, maxAbs, thresholds))
            return bad;
    }
    return std::nullopt;
}

std::optional<std::string> checkSamples(const std::vector<HostTensor>& outputs,
                                        const std::vector<std::vector<double>>& reference,
                                        const std::vector<double>& maxAbsReference,
                                        const SamplePositions& positions,
                                        const Thresholds& thresholds) {
    for (size_t k = 0; k < outputs.size() && k < reference.size() && k < positions.perOutput.size();
         ++k) {
        const std::vector<int64_t>& pos = positions.perOutput[k];
        const double m = k < maxAbsReference.size() ? maxAbsReference[k] : 0;
        if (auto bad = checkOutput(
                outputs[k], k, pos.size(), [&](size_t j) { return pos[j]; },
                [&](size_t j) { return reference[k][size_t(pos[j])]; }, m, thresholds))
            return bad;
    }
    return std::nullopt;
}

}  // namespace reach
