#include "core/benchmark/exactprojection.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace reach {

namespace {

// p90 - p10 of a normal distribution, in standard deviations (2 x 1.2816).
constexpr double kTenNinetyWidth = 2.563;
// The standard error of a normal sample's median over that of its mean: sqrt(pi / 2).
constexpr double kMedianEfficiency = 1.2533;

void requireShare(double v, const char* what) {
    if (!(v >= 0 && v <= 1))
        throw std::invalid_argument(std::string(what) + " must lie in [0, 1], got " +
                                    std::to_string(v));
}

bool hasSpread(const TimedLoop& t) {
    return t.samplesUs.size() >= 2 || t.medianStandardError().has_value();
}

// How the bootstrap draws one loop's median. A loop with repetitions resamples them (their own
// shape, skew and outliers included) unless that would pass the bootstrap's work bound (a 12 MB
// document of repetitions took 108 s): then, as a loop without them, a normal draw around the
// median, its standard error from the repetitions' order statistics, which is what the median of
// a resample of that many varies by. A loop with neither stays at its median.
struct LoopDraw {
    const TimedLoop* loop = nullptr;
    bool resample = false;
    std::optional<double> standardError;

    size_t cost() const { return resample ? loop->samplesUs.size() : 1; }
};

LoopDraw loopDraw(const TimedLoop& t) {
    LoopDraw d;
    d.loop = &t;
    d.resample = t.samplesUs.size() >= 2;
    if (!d.resample)
        d.standardError = t.medianStandardError();
    return d;
}

// A loop of fewer repetitions keeps resampling whatever the bound: switching it saves little, and
// its median's distribution is the furthest from a normal.
constexpr size_t kNormalFromRepetitions = 30;

// Keeps resamples x draws within kBootstrapDrawBudget where it can: the largest loops draw from
// the normal instead of resampling until the asked resamples fit (a loop of many repetitions is
// where the normal is closest to the resampled median). Returns how many loops were switched.
int fitLoopsToBudget(std::vector<LoopDraw>& loops, int resamples) {
    size_t cost = 0;
    for (const LoopDraw& d : loops)
        cost += d.cost();
    std::vector<LoopDraw*> bySize;
    for (LoopDraw& d : loops)
        if (d.resample)
            bySize.push_back(&d);
    std::sort(bySize.begin(), bySize.end(), [](const LoopDraw* a, const LoopDraw* b) {
        return a->loop->samplesUs.size() > b->loop->samplesUs.size();
    });
    int switched = 0;
    for (LoopDraw* d : bySize) {
        if (static_cast<long long>(cost) * resamples <= kBootstrapDrawBudget ||
            d->loop->samplesUs.size() < kNormalFromRepetitions)
            break;
        cost -= d->cost() - 1;
        d->resample = false;
        d->standardError = orderStatisticMedianError(d->loop->samplesUs);
        ++switched;
    }
    return switched;
}

double drawMedian(const LoopDraw& d, std::mt19937_64& rng, std::vector<double>& scratch) {
    const TimedLoop& t = *d.loop;
    if (d.resample) {
        const size_t n = t.samplesUs.size();
        scratch.resize(n);
        for (double& x : scratch)
            x = t.samplesUs[drawIndex(rng, n)];
        return median(scratch);
    }
    if (d.standardError)
        return t.medianUs + *d.standardError * drawStandardNormal(rng);
    return t.medianUs;
}

// A winner's saving for one draw of both medians. A draw where the candidate is slower saves
// nothing (the problem would stay at its baseline); a kernel never saves more than its own time.
double drawnSaving(double share, double candidateUs, double eagerUs) {
    if (!(eagerUs > 0))
        return 0;
    return share * std::clamp(1.0 - candidateUs / eagerUs, 0.0, 1.0);
}

}  // namespace

std::optional<double> TimedLoop::medianStandardError() const {
    if (!p10Us || !p90Us || reps < 1 || !(*p90Us >= *p10Us))
        return std::nullopt;
    const double sd = (*p90Us - *p10Us) / kTenNinetyWidth;
    return kMedianEfficiency * sd / std::sqrt(double(reps));
}

std::optional<double> ExactProjection::wallSavedShare() const {
    if (!wall)
        return std::nullopt;
    return wall->wallShare(savedShare);
}

std::optional<Interval> ExactProjection::wallSavedInterval() const {
    if (!wall)
        return std::nullopt;
    // wallShare is monotone in the saved share: the interval's ends map to the wall's.
    return Interval{wall->wallShare(savedInterval.lo), wall->wallShare(savedInterval.hi)};
}

std::optional<double> ExactProjection::wallEndToEndSpeedup() const {
    const auto saved = wallSavedShare();
    if (!saved)
        return std::nullopt;
    return reach::endToEndSpeedup(*saved);
}

std::optional<double> ExactProjection::coveredSolBound() const {
    if (!coveredSolSavedShare)
        return std::nullopt;
    return reach::endToEndSpeedup(*coveredSolSavedShare);
}

ExactProjection computeExactProjection(const ExactProjectionInput& in,
                                       const ExactProjectionOptions& options) {
    if (options.resamples < 1)
        throw std::invalid_argument("the bootstrap needs at least one resample");
    if (!(options.level > 0 && options.level < 1))
        throw std::invalid_argument("the interval's level must lie in (0, 1)");
    requireShare(in.addressableShare, "the addressable share");

    ExactProjection out;
    out.options = options;
    out.workloadSolBound = in.workloadSolBound;
    if (in.wall && in.wall->known())
        out.wall = in.wall;

    std::vector<size_t> winners;
    std::vector<double> winnerSigmas;
    double solSaved = 0;
    bool anySol = false;
    for (size_t i = 0; i < in.problems.size(); ++i) {
        const ExactProblemInput& p = in.problems[i];
        requireShare(p.share, "a problem's share of GPU time");
        out.coveredShare += p.share;
        ExactProblemOutcome o;
        if (p.result) {
            if (!(p.result->candidate.medianUs > 0) || !(p.result->eager.medianUs > 0))
                throw std::invalid_argument("a verified result's medians must be > 0");
            o.sigma = p.result->sigma();
            // A slower (or equal) candidate is not used: the problem keeps its baseline.
            o.winner = o.sigma > 1;
        }
        if (o.winner) {
            o.savedShare = p.share * (1.0 - 1.0 / o.sigma);
            o.fixedInBootstrap = !hasSpread(p.result->candidate) && !hasSpread(p.result->eager);
            winners.push_back(i);
            winnerSigmas.push_back(o.sigma);
            out.savedShare += o.savedShare;
        }
        if (p.solSavedShare) {
            requireShare(*p.solSavedShare, "a problem's speed-of-light saving");
            o.solSavedShare = p.solSavedShare;
            anySol = true;
            solSaved += *p.solSavedShare;
            out.coveredEstimatedShare += p.share;
            // Saving more than the roofline allows means a projected time below speed of light;
            // the relative margin absorbs rounding in the two sums.
            o.belowSpeedOfLight = o.winner && o.savedShare > *p.solSavedShare * (1 + 1e-9) + 1e-15;
        }
        out.problems.push_back(o);
    }
    if (out.coveredShare > 1 + 1e-9)
        throw std::invalid_argument("the problems' shares sum to more than the workload's time");
    out.winners = int(winners.size());
    out.endToEndSpeedup = endToEndSpeedup(out.savedShare);
    if (anySol)
        out.coveredSolSavedShare = solSaved;

    // Parametric bootstrap over the timing noise of the chosen results: each winner's candidate
    // and eager medians are drawn again and its saving recomputed. The chosen candidate is kept
    // (no re-selection among a problem's results), and a problem without a winner stays at its
    // baseline in every resample.
    std::vector<LoopDraw> loops;  // each winner's candidate, then its eager baseline
    for (size_t i : winners) {
        loops.push_back(loopDraw(in.problems[i].result->candidate));
        loops.push_back(loopDraw(in.problems[i].result->eager));
    }
    out.loopsDrawnNormal = fitLoopsToBudget(loops, options.resamples);
    size_t drawsPerResample = 0;
    for (const LoopDraw& d : loops)
        drawsPerResample += d.cost();
    out.resamples = bootstrapResamples(options.resamples, drawsPerResample);
    std::mt19937_64 rng(options.seed);
    std::vector<double> sums;
    sums.reserve(size_t(out.resamples));
    std::vector<double> scratch;
    for (int b = 0; b < out.resamples; ++b) {
        double sum = 0;
        for (size_t w = 0; w < winners.size(); ++w) {
            const double candidate = drawMedian(loops[2 * w], rng, scratch);
            const double eager = drawMedian(loops[2 * w + 1], rng, scratch);
            sum += drawnSaving(in.problems[winners[w]].share, candidate, eager);
        }
        sums.push_back(sum);
    }
    const double alpha = (1 - options.level) / 2;
    out.savedInterval = {quantile(sums, alpha), quantile(sums, 1 - alpha)};
    out.endToEndInterval = {endToEndSpeedup(out.savedInterval.lo),
                            endToEndSpeedup(out.savedInterval.hi)};

    std::optional<double> m;
    if (!winnerSigmas.empty())
        m = median(winnerSigmas);
    out.medianWinnerSigma = m;
    const double w = in.problems.empty() ? 0.0 : double(winners.size()) / in.problems.size();
    out.study = projectSummary("", in.addressableShare, w, m.value_or(1.0), out.wall);
    return out;
}

std::string exactProjectionAssumptions() {
    return "Projection, not a measurement: saved = sum over the benchmark's problems of s_i x (1 "
           "- 1/sigma_i), end-to-end speedup = 1 / (1 - saved). s_i is the share of the "
           "workload's GPU time in exactly the trace's kernels the problem stands for; sigma_i "
           "is the eager baseline's median over the candidate's median in the same verify run "
           "(the trace ran PyTorch eager kernels, so eager is what a winner replaces; the "
           "verifier's own speedup against its fastest baseline is shown beside it). A problem "
           "counts only with Reach's verdict pass and sigma_i > 1; every other problem keeps "
           "its baseline at no extra cost. Each kernel saves only its own time, gains on "
           "different problems are independent and add up (Amdahl decomposition), the speedup "
           "measured on the problem carries over to the trace's kernels, and putting the "
           "kernels into the workload costs nothing (no launches, copies, layout changes or "
           "lost fusions: `reach-cli integrate` measures that). The interval is a parametric "
           "bootstrap over "
           "the timing spread of the chosen results (per-repetition times resampled where the "
           "document has them, else a normal draw with the median's standard error from p10 "
           "and p90; where resampling every repetition would pass the bootstrap's work bound, "
           "the largest loops draw from a normal with the standard error of their "
           "repetitions' median instead); the chosen candidate is kept in every resample (no "
           "re-selection), so the "
           "choice of the best of several candidates is not part of the interval. Of the wall "
           "clock: saved GPU time over the profiled span, idle gaps unchanged.";
}

}  // namespace reach
