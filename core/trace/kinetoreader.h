#pragma once

#include <cstddef>
#include <stop_token>
#include <string>

#include "core/base/progress.h"
#include "core/base/workload.h"

namespace reach {

class ByteSource;

struct KinetoOptions {
    // Threads that parse pieces of "traceEvents" while the calling thread reads and cuts the
    // file (the result is the same bits whatever the number): -1 picks from the CPUs this
    // process may use (none below four), 0 parses on the calling thread.
    int threads = -1;
    // A piece is cut after the element that reaches this, or half of it when the window refills.
    size_t pieceBytes = 2 << 20;
    // Also gather what the trace says of its rank in a distributed run (Workload::rank:
    // distributedInfo, the compute and collective spans, the collectives), in the same pass.
    bool rankFacts = false;
};

// Reads a PyTorch profiler (Kineto) Chrome trace, plain or gzip, in one streaming pass: events
// are folded into per-name aggregates and compact per-event records as they arrive, and links
// (GPU activity -> launching cpu_op through "External id", else through "correlation" to its launch
// call and the innermost cpu_op enclosing that call on its thread) are resolved at the end because
// events come in any order. Fills everything in Workload except name and source.
// Progress is the fraction of file bytes read; throws InputError on bad input, Cancelled on stop.
Workload readKineto(ByteSource& source, const ProgressFn& progress = {}, std::stop_token stop = {},
                    const KinetoOptions& options = {});

}  // namespace reach
