#pragma once

#include <string>
#include <vector>

#include "core/distributed/rankscan.h"

namespace reach {

// The ranks of one distributed run side by side (docs/distributed.md): their collectives
// matched, each rank's clock offset from the first's, and per collective and per rank what was
// moving bytes and what was waiting.
//
// Matching, per group (process group and operation): when every rank's trace records the
// group's sequence numbers, a collective is the one of the same number on every rank, and one
// that some rank lacks (a sampled trace) or records twice is listed unmatched with why while the
// rest match; else it is the k-th of the group in begin order on every rank, and a group whose
// count differs between ranks (a sampled or cut trace) is listed unmatched whole, with why. A
// matched one whose recorded bytes differ between ranks where the operation sends equal ones is
// listed too.
//
// Clocks: every rank leaves a collective together (the last arrival releases them all), so the
// difference of two ranks' end times of a matched collective is their clock offset plus noise.
// A rank's offset is the median of those differences against the first rank; its uncertainty
// is 2 x 1.4826 x their median absolute deviation / sqrt(n) (about 95 % for normal noise), at
// least the traces' 1 us resolution.
//
// Per matched collective, on aligned clocks: `transfer` is its shortest duration over the ranks
// (the rank that arrived last waited for nobody: its time is the moving of bytes, TraceLens's
// comm_latency); every rank's `wait` is its duration minus that. The straggler is the last to
// arrive; its `skew` is how much after the next-to-last it came (what everyone waited for it
// alone); a rank's last arrivals count those with a skew of 1 us or more (less is a tie).
struct ClockOffset {
    double offsetUs = 0;       // this rank's clock minus the first rank's
    double uncertaintyUs = 0;  // 0 for the first rank
    int samples = 0;           // matched collectives it stands on
};

struct MatchedCollective {
    std::string group, op;
    long index = 0;        // its place in the group (the sequence number when recorded)
    long long bytes = -1;  // the first rank's, when recorded
    std::vector<double> arrival, leave;  // per rank, aligned to the first rank's clock
    std::vector<double> waitUs;          // per rank
    double transferUs = 0;
    size_t straggler = 0;  // rank index
    double skewUs = 0;
};

struct UnmatchedCollective {
    size_t rank = 0;  // rank index
    std::string group, op;
    long count = 0;  // how many of the group this rank has
    std::string why;
};

struct RankCommunication {
    double collectiveUs = 0;     // summed durations of its collectives (matched or not)
    double waitUs = 0;           // of the matched ones, the waiting
    double transferUs = 0;       // and the moving of bytes
    double overlapUs = 0;        // collective time during which compute ran on the rank's GPU
    double computeUs = 0;        // the union of its other GPU activities
    int lastArrivals = 0;        // collectives it arrived last at
    double stragglerCostUs = 0;  // their skews
};

struct RunAnalysis {
    std::vector<RankTrace> ranks;  // in rank order
    std::vector<ClockOffset> offsets;
    std::vector<MatchedCollective> matched;
    std::vector<UnmatchedCollective> unmatched;
    std::vector<RankCommunication> communication;
    size_t critical = 0;  // the rank the others wait for: the least waiting (rank index)
    std::vector<std::string> warnings;
};

// Orders the ranks (by their rank; duplicates or none: InputError naming the file), matches and
// measures.
RunAnalysis analyzeRun(std::vector<RankTrace> ranks);

}  // namespace reach
