#pragma once

#include <optional>
#include <string>
#include <vector>

namespace reach {

// The study's published Table 3 (datasets/paper/table3.json), kept as data so the projection can
// be checked against it (golden test) and shown beside the user's own workloads.
struct PublishedWorkload {
    std::string name;
    double libraryOptimized = 0;
    double addressable = 0;
    std::optional<double> projectedGain;  // fraction; none where the paper gives none
};

struct PublishedStudy {
    std::string source;
    double winRate = 0;
    double medianSpeedup = 1;
    std::vector<PublishedWorkload> workloads;
};

// Throws InputError naming the file, the key (e.g. "workloads[2].addressable") and what was
// expected there.
PublishedStudy readPublishedStudy(const std::string& path);

}  // namespace reach
