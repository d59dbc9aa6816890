#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/verify/hosttensor.h"
#include "core/verify/operators.h"

namespace reach {

// Every timed repetition's output is checked (docs/verifier.md, "Every timed call can be checked"):
// at positions drawn once per job from a generator the runner never sees, against the reference of
// the input set that repetition was given. The runner cannot tell which elements are looked at,
// and a repetition it skipped, served from a cache or left unfinished shows.
struct SamplePositions {
    std::vector<std::vector<int64_t>> perOutput;  // element indices, per output
};

// Up to `perOutput` distinct positions in each output (all of them when it is smaller).
SamplePositions drawSamplePositions(const std::vector<TensorSpec>& outputs, std::mt19937_64& rng,
                                    int64_t perOutput = 65536);

// The largest finite |value| of each reference output (the scale norm_max_error divides by).
std::vector<double> finiteMaxAbs(const std::vector<std::vector<double>>& reference);

// nullopt when the outputs agree with the reference at the positions (within the thresholds'
// rel_frobenius and norm_max_error, over the sampled elements; no element still the sentinel;
// no NaN or Inf where the reference is finite); else what is wrong, one phrase.
std::optional<std::string> checkSamples(const std::vector<HostTensor>& outputs,
                                        const std::vector<std::vector<double>>& reference,
                                        const std::vector<double>& maxAbsReference,
                                        const SamplePositions& positions,
                                        const Thresholds& thresholds);

// The same check on elements gathered at the positions on the GPU: gathered[k] holds output k's
// sampled elements (bytes as the device held them, in the positions' order), want[k] the
// reference there; the scale of norm_max_error is the largest finite |reference| among them.
std::optional<std::string> checkGathered(const std::vector<HostTensor>& gathered,
                                         const std::vector<std::vector<double>>& want,
                                         const Thresholds& thresholds);

}  // namespace reach
