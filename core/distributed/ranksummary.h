#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "core/distributed/rankscan.h"

namespace reach {

// What one rank of a run leaves for the reduce (docs/distributed.md, "Past one machine"): its
// scan (rankscan.h: spans and collectives, not its events) and its four categories under the
// rules the map used. `reach-cli breakdown TRACE --rank-summary OUT` writes one, a Slurm job
// array writes one per rank, and `breakdown SUMMARY... --ranks` reads them as the traces.
struct RankSummary {
    RankTrace trace;
    double gpuTimeUs = 0;
    std::array<double, 4> categoryUs{};  // indexed by Category
    std::string rulesName, rulesHash;
};

// The document, "schema": "reach.rank_summary" its first key (how a reader tells it from a
// trace without reading it whole).
std::string rankSummaryText(const RankSummary& s);

// True when the file is a rank summary: it begins as one (as Reach writes it), or it is a JSON
// document of at most 8 MB whose "schema" says so (keys reordered by another tool).
bool looksLikeRankSummary(const std::string& path);

// Reads one back; every key is checked (a summary may come from elsewhere): InputError naming
// the file and the key.
RankSummary readRankSummary(const std::string& path);

}  // namespace reach
