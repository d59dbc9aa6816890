#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace reach {

// One rank of a distributed run as one streaming pass over its Kineto trace keeps it
// (docs/distributed.md): who it is, the spans its GPU computed and communicated (for their
// overlap) and its collectives (NCCL/RCCL kernels) with what PyTorch records of them. Memory:
// the spans and the collectives, never the file. It is also what a rank's summary holds (the
// map of a run read on many machines: ranksummary.h).
using Span = std::pair<double, double>;  // [begin, end), us, the rank's own clock

struct Collective {
    std::string op;      // from the kernel's name: "AllReduce", "AllGather", "SendRecv", ...
    std::string kernel;  // the kernel's name as recorded
    int64_t stream = -1;
    double begin = 0, end = 0;  // the rank's own clock, us
    // From the launching record_param_comms when the trace has it (PyTorch 2.x): the process
    // group's name, the bytes sent, the group's sequence number; else "", -1, -1.
    std::string group;
    int64_t bytes = -1;
    int64_t seq = -1;
};

struct RankTrace {
    std::string path;
    int rank = -1;         // distributedInfo's, else the file name's ("rank-3", "rank_3", "rank3")
    std::string rankFrom;  // "distributedInfo", "file name" or "" (then the order given)
    int worldSize = 0;     // distributedInfo's world_size, 0 when absent
    std::string backend;   // distributedInfo's backend ("nccl")
    // The union of its GPU activities other than collectives, and of its collectives: sorted,
    // disjoint.
    std::vector<Span> computeSpans, collectiveSpans;
    std::vector<Collective> collectives;  // in begin order
    double gpuUs = 0;                     // summed durations of the activities
};

// Scans a Kineto trace (JSON or gzip); InputError naming the file and the byte when it is not one.
RankTrace scanRank(const std::string& path);

// The operation a collective kernel's name says ("ncclDevKernel_AllReduce_Sum_f32_RING_LL" ->
// "AllReduce"); empty when the name is not a collective's.
std::string collectiveOp(const std::string& kernelName);

// The rank a file's name says ("rank-3.json.gz", "trace_rank_12.json"), -1 when none.
int rankFromFileName(const std::string& path);

}  // namespace reach
