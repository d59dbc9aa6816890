#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/base/category.h"
#include "core/ownbenchmark/benchmarkfolder.h"

namespace reach {

// Each problem's time in a profile, found by its operator call signature as extract groups the
// kernels: what the exact projection (project --benchmark, the GUI) and integrate's projection on
// its as-is run take each problem's share from. Never benchmark.json's own numbers (issue 37:
// its gpu_us is the file's word; the profile at hand is Reach's own reading).
struct ProblemTime {
    double us = 0;
    double share = 0;    // us over the profile's GPU time
    bool found = false;  // its signature is in the profile (and no earlier problem took it)
    int64_t calls = 0;   // the operator calls that launched that time
};

// `category`: the kernels grouped (nullopt: every kernel). Each (operator, signature) counts for
// the first problem that names it: a second entry of the same call gets 0, never its time twice.
std::vector<ProblemTime> problemTimesIn(const Breakdown& breakdown,
                                        const BenchmarkFolder& benchmark,
                                        const std::optional<Category>& category);

// The category benchmark.json says its kernels were grouped in ("addressable", ... ; nullopt for
// "all" or anything else).
std::optional<Category> benchmarkCategory(const BenchmarkFolder& benchmark);

}  // namespace reach
