#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "core/headroom/headroom.h"

namespace reach {

// One workload's headroom as JSON (docs/headroom.md): the GPU row, coverage, headroom on both
// bases, the speed-of-light bound, per category and family, the maxKernels kernels with the
// largest headroom and the time without an estimate. Times rounded to 1 ns, shares to 1e-6.
nlohmann::json headroomToJson(const Headroom& h, size_t maxKernels);

// The GPU table row as JSON (name, peaks, source).
nlohmann::json gpuToJson(const GpuSpec& g);

// The local GPU's row (measuredGpu) from what `reach-verify --device-info --bandwidth` printed.
// Throws InputError naming `file` when the verifier saw no GPU, measured no bandwidth, or the
// device has no row in the table.
GpuSpec gpuFromDeviceInfo(const nlohmann::json& device, const std::string& file);

}  // namespace reach
