#pragma once

#include <stop_token>
#include <string>

#include "core/base/progress.h"
#include "core/base/workload.h"

namespace reach {

// Reads an Nsight Systems `nsys export --type sqlite` file: kernels from
// CUPTI_ACTIVITY_KIND_KERNEL (names through StringIds), memcpy/memset tables, the GPU name from
// TARGET_INFO_GPU. A table exists only when the capture had such activity, so each is optional;
// both schema eras (EXPORT_META_DATA 2.x, META_DATA_EXPORT 3.x) read the same way. Nsight has no
// ATen operator links, so KernelStats::operators stays empty.
// Throws InputError for a file SQLite rejects or an export without the tables Reach needs.
Workload readNsysSqlite(const std::string& path, const ProgressFn& progress = {},
                        std::stop_token stop = {});

}  // namespace reach
