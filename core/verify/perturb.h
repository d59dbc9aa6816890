#pragma once

#include <cstdint>

#include "core/verify/hosttensor.h"

namespace reach {

// A timed repetition's inputs made new (docs/verifier.md, "Every timed call can be checked"):
// the C++ controller keeps two drawn input sets and, before every timed call, multiplies every
// element of every floating input by its own factor in [0.75, 1.25) from a secret seed, on the
// GPU (gpu/devicekernels.cpp). A cache keyed by the inputs' contents never sees the same inputs
// twice (issue 36: with the two sets as they were, a two-entry cache was right every time), and
// no cheaper function of a cached answer gives the new one (a scalar scale would: A*s @ B =
// s * (A @ B)). Index inputs are copied as they are. This is the same arithmetic on the host,
// bit for bit, so that a repetition chosen after the loop can be checked against its reference.
//
// factor(seed, i) = 0.75 + (splitmix64(seed ^ splitmix64(i)) >> 42) * 2^-23, exact in float;
// the element becomes round_to_dtype(float(x) * factor), one float multiplication rounded to
// nearest (no fused multiply-add), bf16 rounded to nearest even.
uint64_t perturbHash(uint64_t seed, uint64_t i);
float perturbFactor(uint64_t seed, uint64_t i);
// In place: F32 and BF16 (the C++ problems' floating dtypes); other tensors are left alone.
void perturbHost(HostTensor& t, uint64_t seed);

}  // namespace reach
