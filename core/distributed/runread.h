#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/distributed/runanalysis.h"

namespace reach {

// A distributed run read from its files (docs/distributed.md): what `reach-cli breakdown
// --ranks` and the GUI's rank view show, computed once here.
struct RankCategories {
    double gpuTimeUs = 0;
    std::array<double, 4> categoryUs{};  // indexed by Category
    std::string rulesName, rulesHash;
    bool fromSummary = false;  // a rank summary the map wrote, not a trace
    double share(size_t category) const {
        return gpuTimeUs > 0 ? categoryUs[category] / gpuTimeUs : 0;
    }
};

struct DistributedRun {
    RunAnalysis run;
    std::vector<RankCategories> categories;  // per rank, in run.ranks' order
    // On the critical rank: addressable / GPU time, and / (GPU time - its wait).
    double addressableShare = 0, addressableShareWaitingOut = 0;
};

// One rank as read: a trace in one streaming pass (its rank's facts and its breakdown under the
// rules), or a rank summary as the map wrote it.
struct RankReading {
    RankTrace trace;
    RankCategories categories;
};
// `parseThreads`: the Kineto reader's (KinetoOptions::threads; -1 lets it choose).
RankReading readRank(const std::string& file, const RuleSet& rules, int parseThreads = -1);

// The files of a run: each file given, and a folder's *.json and *.json.gz by name.
std::vector<std::string> runFiles(const std::vector<std::string>& inputs);

// Reads every rank (readRank), at most `threads` at a time on their own threads (0: the
// machine's cores, at most eight) and at most `memoryBudget` bytes of readings at once by their
// estimates (readbudget.h; 0: no bound), and analyses the run. InputError naming the first bad
// file in the order given.
constexpr uint64_t kDefaultRunMemory = 2ull << 30;
DistributedRun readRun(const std::vector<std::string>& files, const RuleSet& rules,
                       unsigned threads = 0, uint64_t memoryBudget = kDefaultRunMemory);

}  // namespace reach
