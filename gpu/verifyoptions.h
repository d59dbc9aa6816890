#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace reach {

// One verification job: what reach-verify runs, once per process.
struct VerifyOptions {
    std::string problemFile;
    std::string candidateFile;
    std::optional<uint64_t> seed;  // default: the problem's seed
    std::optional<double> scale;   // overrides params.scale (x1, x100, x0.01, -1, ...)
    int reps = 100;
    int warmup = 10;
    bool timing = true;
    bool baseline = true;
    double recordedBaselineUs = 0;  // a recorded baseline time; the faster one is used
    std::string recordedBaselineSource;
    std::string thresholdsFile;  // JSON object overriding per-dtype thresholds
    std::string resourceDir;     // holds include/reach/candidate.h and baselines/
    std::string cacheDir;        // compiled candidates; default ~/.cache/reach/candidates
    std::string arch;            // --compile-only for this arch ("sm_90") without asking a GPU
};

}  // namespace reach
