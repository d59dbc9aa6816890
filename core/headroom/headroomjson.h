#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>

#include "core/headroom/headroom.h"

namespace reach {

// One workload's headroom as JSON (docs/headroom.md): the GPU row, coverage, headroom on both
// bases, the speed-of-light bound, per category and family, the maxKernels kernels with the
// largest headroom and the time without an estimate. Times rounded to 1 ns, shares to 1e-6.
nlohmann::json headroomToJson(const Headroom& h, size_t maxKernels);

// The GPU table row as JSON (name, peaks, source).
nlohmann::json gpuToJson(const GpuSpec& g);

}  // namespace reach
