#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/verify/verification.h"

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
};

// Describes the GPU the job would use, or why there is none (a normal answer).
DeviceInfo queryDevice();

// Runs the whole job: compile, load, fill, run, check, time, baseline, roofline. Never throws
// for a bad candidate (that is a verdict); throws InputError for a bad problem or thresholds
// file. Without a GPU (or a build without CUDA) the verdict is "no_gpu".
VerificationResult runVerifyJob(const VerifyOptions& o);

// Compiles (or finds in the cache) options.candidateFile for the device's arch, nothing else.
CompileInfo compileCandidateOnly(const VerifyOptions& o);

}  // namespace reach
