#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/rankfacts.h"

namespace reach {

// What kind of GPU activity a row aggregates. Memcpy and memset are GPU time too (overhead).
enum class ActivityKind { Kernel = 0, Memcpy = 1, Memset = 2 };

// Time a kernel spent under one launching CPU operator (ATen op in Kineto traces).
struct OperatorTime {
    std::string op;
    double totalUs = 0;
    int64_t calls = 0;
};

// Time under one (operator, input shapes) pair, when the trace recorded shapes (PyTorch's
// record_shapes=True): what the headroom estimate needs. The signature is compact JSON:
// {"dims":[[8192,4096],[4096]],"types":["c10::BFloat16",...],"concrete":["","1"],
// "strides":[[4096,1],[1]]} (strides only where the trace has them).
struct ShapedCall {
    std::string op;
    std::string signature;
    int64_t calls = 0;    // launches of this kernel under the operator
    int64_t opCalls = 0;  // distinct operator calls that launched it (a foreach op launches
                          // its kernel once per chunk of tensors: calls > opCalls)
    double totalUs = 0;
};

// Per-name aggregate of one GPU activity over the whole profile. Aggregated by the full
// (demangled) name; display code shortens it.
struct KernelStats {
    std::string name;
    ActivityKind kind = ActivityKind::Kernel;
    int64_t calls = 0;
    double totalUs = 0;
    double minUs = 0;
    double maxUs = 0;
    // Launching operators, largest time first; empty when the trace has no links for this name.
    std::vector<OperatorTime> operators;
    std::vector<int> streams;  // distinct stream ids seen, ascending
    std::string grid;          // "x,y,z" of the first launch, empty when unknown
    std::string block;
    // Launches that came from CUDA graph replays (a graph launch call, not a kernel launch, is
    // what the CPU did): their count and time, part of calls and totalUs.
    int64_t graphCalls = 0;
    double graphUs = 0;
    // Per (launching operator, its input shapes), largest time first; empty without shapes.
    std::vector<ShapedCall> shapedCalls;

    double linkedUs() const;                      // time that has an operator link
    const std::string& dominantOperator() const;  // empty when none
};

// One profiled workload: what the readers produce and the store keeps.
struct Workload {
    std::string name;        // from the file name unless the user renames it
    std::string source;      // file it was read from (as given)
    std::string sourceHash;  // SHA-256 of the file bytes, hex
    std::string format;      // "kineto" or "nsys-sqlite"
    std::string device;      // GPU name when the profile says, else empty
    double gpuTimeUs = 0;    // sum of all kernel + memcpy + memset durations
    double busyTimeUs = 0;   // union of GPU intervals (<= gpuTimeUs when streams overlap)
    double spanUs = 0;       // profiled span: first event start to last event end
    int64_t eventCount = 0;  // GPU activities read
    // Of the linked time, what was linked through a twin: activities whose launch the trace
    // missed, given the operator call of their repeats (core/trace/kinetomerge.h).
    double twinLinkedUs = 0;
    std::vector<KernelStats> kernels;  // largest totalUs first
    // False only for a workload read from a project saved before Reach kept shaped calls
    // (schema 7): its missing shapes are the project's loss, not the trace's.
    bool shapesKept = true;
    // What a Kineto trace says of its rank in a distributed run, when the reading asked for it
    // (KinetoOptions::rankFacts; core/distributed reads a run's ranks so). Not stored in a project.
    std::optional<RankFacts> rank;

    bool hasOperatorLinks() const;
    bool hasShapes() const;  // some kernel has shaped calls (record_shapes=True)
};

}  // namespace reach
