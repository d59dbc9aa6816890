#pragma once

#include <stop_token>
#include <string>

#include "core/base/progress.h"
#include "core/base/workload.h"

namespace reach {

class ByteSource;

// Reads a PyTorch profiler (Kineto) Chrome trace, plain or gzip, in one streaming pass: events
// are folded into per-name aggregates and compact per-event records as they arrive, and links
// (kernel -> launching cpu_op through "External id") are resolved at the end because events come
// in any order. Fills everything in Workload except name and source.
// Progress is the fraction of file bytes read; throws InputError on bad input, Cancelled on stop.
Workload readKineto(ByteSource& source, const ProgressFn& progress = {}, std::stop_token stop = {});

}  // namespace reach
