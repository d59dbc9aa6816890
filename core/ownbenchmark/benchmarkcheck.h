#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/benchmark/kernelmatch.h"

namespace reach {

// reach-cli extract --check DIR (docs/benchmark.md): runs every problem of a folder written by
// reach-cli extract, profiles one call of each, and says whether it launches the kernels of the
// trace it stands for. The problems are code: they run only because the user asked for the
// check, each in its own process (resources/python/reach_problem_kernels.py), with a timeout.

struct BenchmarkCheckOptions {
    std::string python;           // the interpreter; empty: findPython("")
    std::string script;           // empty: <resources>/python/reach_problem_kernels.py
    std::string device = "cuda";  // "cpu": the problems run, nothing is profiled on a GPU
    double timeoutPerProblem = 120;
    int jobs = 1;  // problems profiled at once (one GPU takes several)
    int warmup = 2;
};

struct BenchmarkCheck {
    std::string dir;
    LaunchReport runs;
    // Per problem of benchmark.json, in its order: its file and what its run matched.
    std::vector<std::pair<std::string, KernelMatch>> problems;
    double traceUs = 0, matchedUs = 0;   // over every problem's trace kernels
    double launchedUs = 0, extraUs = 0;  // over every problem's run
    int ran = 0, failed = 0;
    // benchmark.json is signed with the user's key when it is written (core/base/evidence.h);
    // why not, when it could not be (it is then a claim like a file written by hand).
    std::string unsignedWhy;

    double matchedShare() const { return traceUs > 0 ? matchedUs / traceUs : 0; }
};

// Runs the check and writes its result into DIR/benchmark.json (each problem's
// "launches_same_kernels", a top-level "check"), signed as measured here, replacing the file
// whole or not at all.
// Throws InputError for a folder that is not an extraction, an interpreter that does not start
// or an answer of the wrong shape; a problem that fails, hangs or crashes is a result.
BenchmarkCheck checkBenchmark(const std::string& dir, const BenchmarkCheckOptions& options);

// The top-level "check" object: the device, torch, how many ran, the matched share of the
// covered time.
nlohmann::json benchmarkCheckSummary(const BenchmarkCheck& check);

}  // namespace reach
