#pragma once

#include <string>
#include <vector>

#include "core/base/rankfacts.h"
#include "core/base/workload.h"

namespace reach {

// One rank of a distributed run as Reach keeps it (docs/distributed.md): who it is, the spans its
// GPU computed and communicated (for their overlap) and its collectives. It comes from the same
// streaming pass that reads the rank's trace for its breakdown (Workload::rank, gathered by the
// Kineto reader), and is what a rank's summary holds (the map of a run read on many machines:
// ranksummary.h).
struct RankTrace {
    std::string path;
    int rank = -1;         // distributedInfo's, else the file name's ("rank-3", "rank_3", "rank3")
    std::string rankFrom;  // "distributedInfo", "file name" or "" (then the order given)
    int worldSize = 0;     // distributedInfo's world_size, 0 when absent
    std::string backend;   // distributedInfo's backend ("nccl")
    // The union of its collectives, and of its other GPU activities where it overlaps them (all
    // the run's overlap needs: a rank of millions of kernels keeps thousands of spans, not
    // millions); sorted, disjoint. computeUs: the whole union's length.
    std::vector<Span> collectiveSpans, computeSpans;
    double computeUs = 0;
    std::vector<Collective> collectives;  // in begin order
    double gpuUs = 0;                     // summed durations of the activities
};

// The rank of a Kineto trace read with KinetoOptions::rankFacts (InputError naming the file when
// the workload has none: an Nsight export, or a reading that did not ask).
RankTrace rankTraceOf(const std::string& path, const Workload& workload);

// Reads a Kineto trace (JSON or gzip) for its rank alone; InputError naming the file and the
// byte when it is not one.
RankTrace scanRank(const std::string& path);

// The rank a file's name says ("rank-3.json.gz", "trace_rank_12.json"), -1 when none.
int rankFromFileName(const std::string& path);

}  // namespace reach
