#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/benchmark/exactprojection.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/ownbenchmark/verifiedruns.h"

namespace reach {

// The exact projection of one profile from its own benchmark and the verified results found for
// it (issue 26, part 3; docs/benchmark.md, "The exact projection"): the one implementation that
// `reach-cli project --benchmark` prints and the GUI will show.
struct ExactProjectionReport {
    std::string workload;
    BenchmarkFolder benchmark;
    BenchmarkRuns runs;
    ExactProjection projection;
    std::string rulesName, rulesHash;  // the breakdown's: what A is of
    std::string gpu;                   // the headroom's GPU row; empty without one
    std::string solWhy;                // why there is no speed-of-light number, when there is none
    std::vector<std::string> warnings;
    // Of the warnings, those of problems whose every run verified it in another precision than
    // its recorded call (the user most likely left --precision out): the GUI shows these.
    std::vector<std::string> otherPrecision;
    // Of the warnings, the problems with passing runs that are claims (not signed by Reach
    // here): listed, never counted.
    std::vector<std::string> claimed;
    // The benchmark's check (reach-cli extract --check): "measured here" when Reach signed
    // benchmark.json here, "claimed" when it was not or was edited since, "none" without one.
    std::string check = "none";
    std::string checkWhy;
};

// `benchmark` must be of the breakdown's profile (requireBenchmarkOf); `runs` matched to it.
// The speed-of-light numbers come from core/headroom on the breakdown (the GPU row of its
// device): a problem's roofline time is its signature's, shared by its kernels as their time is.
ExactProjectionReport exactProjectionReport(const Breakdown& breakdown, BenchmarkFolder benchmark,
                                            BenchmarkRuns runs,
                                            const ExactProjectionOptions& options = {});

// The chain `reach-cli project --benchmark` and the projection view run, after reading the
// folder and the records (the small, hostile inputs, read before a large profile): the benchmark
// must be of this profile (`profilePath` names it in the error), the records are matched to its
// problems by their bytes, and the report is made.
ExactProjectionReport exactProjectionOf(const Breakdown& breakdown, const std::string& profilePath,
                                        BenchmarkFolder benchmark, const VerifiedRuns& runs,
                                        const ExactProjectionOptions& options = {});

// One JSON document (docs/cli.md, "project --benchmark").
nlohmann::json exactProjectionJson(const ExactProjectionReport& report);

}  // namespace reach
