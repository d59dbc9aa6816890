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

// A benchmark's published summary (no records behind it): the "benchmarks" list.
struct PublishedBenchmark {
    std::string name;
    int denominator = 0;
    int verifiedFaster = 0;
    std::optional<double> medianSpeedup;
    std::optional<double> maxSpeedup;
};

struct PublishedStudy {
    std::string source;
    double winRate = 0;
    double medianSpeedup = 1;
    std::vector<PublishedWorkload> workloads;
    std::vector<PublishedBenchmark> benchmarks;
};

// Throws InputError naming the file, the key (e.g. "workloads[2].addressable") and what was
// expected there.
PublishedStudy readPublishedStudy(const std::string& path);

// Whether a file is a published study rather than a profile: a .json whose first 64 KiB name
// "workloads" and not "traceEvents" (a Kineto trace). Cheap: it never parses.
bool isPublishedStudyFile(const std::string& path);

}  // namespace reach
