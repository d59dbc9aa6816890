#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reach {

// What one rank's trace says of its part in a distributed run (docs/distributed.md), gathered by
// the trace reader in the same pass as everything else when asked (KinetoOptions::rankFacts): who
// the rank is, the spans its GPU computed and communicated (for their overlap) and its
// collectives (NCCL/RCCL kernels) with what PyTorch records of them. Memory: the spans and the
// collectives, never the events.
using Span = std::pair<double, double>;  // [begin, end), us, the rank's own clock

struct Collective {
    std::string op;      // from the kernel's name: "AllReduce", "AllGather", "SendRecv", ...
    std::string kernel;  // the kernel's name as recorded
    int64_t stream = -1;
    double begin = 0, end = 0;  // the rank's own clock, us
    // From the kernel's own args (PyTorch 2.x) or its launching record_param_comms: the process
    // group's name, the bytes sent, the group's sequence number; else "", -1, -1.
    std::string group;
    int64_t bytes = -1;
    int64_t seq = -1;
};

struct RankFacts {
    int rank = -1;        // distributedInfo's rank, -1 when the trace does not say
    int worldSize = 0;    // distributedInfo's world_size, 0 when absent
    std::string backend;  // distributedInfo's backend ("nccl")
    // The union of its GPU activities other than collectives, and of its collectives: sorted,
    // disjoint.
    std::vector<Span> computeSpans, collectiveSpans;
    std::vector<Collective> collectives;  // in begin order (ties by end)
};

// The operation a collective kernel's name says ("ncclDevKernel_AllReduce_Sum_f32_RING_LL" ->
// "AllReduce"); empty when the name is not a collective's.
std::string collectiveOp(std::string_view kernelName);

// Bytes of `elements` elements of a dtype as record_param_comms names it ("Float", "BFloat16",
// ...); -1 when the type is unknown or the count is negative or absurd.
int64_t collectiveBytes(int64_t elements, std::string_view dtype);

// Sorted, disjoint: what the intervals cover.
std::vector<Span> spanUnion(std::vector<Span> spans);
// Of two sorted, disjoint lists: what both cover (sorted, disjoint), and a list's total length.
std::vector<Span> spanIntersection(const std::vector<Span>& a, const std::vector<Span>& b);
double spanLength(const std::vector<Span>& spans);

}  // namespace reach
