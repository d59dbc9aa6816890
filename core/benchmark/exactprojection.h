#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/projection.h"
#include "core/analysis/statistics.h"

namespace reach {

// The exact projection (issue 26, part 3; docs/benchmark.md, "The exact projection"): each
// problem of a workload's own benchmark stands for exactly its kernels of the trace, with share
// s_i of the workload's GPU time; its best verified kernel, sigma_i times faster than the eager
// PyTorch it replaces, saves s_i (1 - 1/sigma_i). Pure arithmetic over numbers: the caller reads
// the benchmark and the verifier's documents (core/ownbenchmark/exactprojectionreport.h).

// One timed loop of a verify run: its median and what the document says of its spread.
struct TimedLoop {
    double medianUs = 0;
    std::optional<double> p10Us, p90Us;  // nearest-rank percentiles of the repetitions
    int reps = 0;
    std::vector<double> samplesUs;  // the repetitions themselves, when the document has them

    // The median's standard error from the spread, for a loop without samples: sd estimated as
    // (p90 - p10) / 2.563 (the 10-90 % range of a normal is 2.563 sd) and the median's standard
    // error 1.2533 sd / sqrt(reps) (sqrt(pi/2): the median of a normal sample). nullopt without
    // p10, p90 or a repetition count: the median then stays fixed in the bootstrap.
    std::optional<double> medianStandardError() const;
};

// The verified result chosen for a problem: Reach's verdict `pass`, the candidate's loop and the
// eager baseline's loop of the same verify document.
struct ChosenResult {
    TimedLoop candidate, eager;
    double sigma() const {
        return candidate.medianUs > 0 ? eager.medianUs / candidate.medianUs : 0;
    }
};

struct ExactProblemInput {
    double share = 0;                     // s_i: its kernels' GPU time / the workload's
    std::optional<ChosenResult> result;   // none: no passing result with both timings
    std::optional<double> solSavedShare;  // its kernels at their roofline: the share saved;
                                          // none where headroom has no estimate
};

struct ExactProjectionInput {
    std::vector<ExactProblemInput> problems;  // every problem of the benchmark
    double addressableShare = 0;              // A of the profile's breakdown (the study's formula)
    std::optional<WallClock> wall;            // the profile's clock: the wall-clock basis
    std::optional<double> workloadSolBound;   // the workload's speed-of-light bound (headroom)
};

struct ExactProjectionOptions {
    int resamples = 2000;
    uint64_t seed = 20261226;
    double level = 0.95;
};

struct ExactProblemOutcome {
    bool winner = false;    // a result with sigma > 1
    double sigma = 0;       // the chosen result's sigma; 0 without one
    double savedShare = 0;  // s_i (1 - 1/sigma_i) for a winner, else 0 (it stays at baseline)
    // A winner whose times have no spread to draw from stays fixed in every resample.
    bool fixedInBootstrap = false;
    // A winner whose projected time s_i / sigma_i is below its kernels' roofline time: the
    // problem's speedup does not carry over to the trace's kernels (or a work formula is wrong).
    bool belowSpeedOfLight = false;
    std::optional<double> solSavedShare;  // the input's, for the report
};

struct ExactProjection {
    std::vector<ExactProblemOutcome> problems;  // in the input's order
    int winners = 0;
    double coveredShare = 0;  // sum of s_i: the GPU time the benchmark stands for
    double savedShare = 0;    // sum of the winners' s_i (1 - 1/sigma_i)
    Interval savedInterval;   // the bootstrap's (1-level)/2 and (1+level)/2 percentiles
    double endToEndSpeedup = 1;
    Interval endToEndInterval;
    std::optional<WallClock> wall;  // known clock only
    std::optional<double> wallSavedShare() const;
    std::optional<Interval> wallSavedInterval() const;
    std::optional<double> wallEndToEndSpeedup() const;

    // The study's method on the same verified results: A * w * (1 - 1/m), w = winners /
    // problems, m = the winners' median sigma (1 when there is none: nothing saved).
    Projection study;
    std::optional<double> medianWinnerSigma;

    // Speed of light: the workload's bound, and the saving if every covered kernel with an
    // estimate ran at its roofline (none when no covered kernel has one).
    std::optional<double> workloadSolBound;
    std::optional<double> coveredSolSavedShare;
    double coveredEstimatedShare = 0;  // the covered GPU time whose kernels have an estimate
    std::optional<double> coveredSolBound() const;

    ExactProjectionOptions options;
    // The bootstrap as made, within its work bound (core/analysis/statistics.h): the resamples
    // drawn (options.resamples unless that many would pass the bound) and the loops with
    // repetitions drawn from a normal with their median's standard error instead of resampled.
    int resamples = 0;
    int loopsDrawnNormal = 0;
};

// Throws std::invalid_argument for a share outside [0,1], shares summing past 1, a result
// with a median <= 0, or options out of range (resamples < 1, level outside (0,1)).
ExactProjection computeExactProjection(const ExactProjectionInput& input,
                                       const ExactProjectionOptions& options = {});

// What the exact projection assumes, to be shown next to its numbers.
std::string exactProjectionAssumptions();

}  // namespace reach
