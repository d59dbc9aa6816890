#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/benchmark/extract.h"

namespace reach {

// A folder written by `reach-cli extract PROFILE --out DIR` (docs/benchmark.md), read back for
// the exact projection: benchmark.json and the current bytes of each problem file. The folder
// may have travelled (a colleague's, a download), so benchmark.json is a stranger's file.

struct BenchmarkKernel {
    std::string name;
    int64_t calls = 0;
    double gpuUs = 0;
};

struct BenchmarkProblem {
    std::string file;  // a plain file name inside the folder
    std::string op;
    nlohmann::json signature;  // the recorded arguments, as benchmark.json has them
    std::vector<BenchmarkKernel> kernels;
    double gpuUs = 0;    // its kernels' time in the trace (their sum)
    double share = 0;    // that time over the workload's GPU time
    std::string sha256;  // of the file's bytes now: what verified results are matched by
};

struct BenchmarkFolder {
    std::string dir;
    std::string profile, profileSha256, category;
    double gpuUs = 0;                        // the workload's GPU time the shares are of
    std::string rulesName, rulesHash;        // the rules extract classified with; empty when unsaid
    std::vector<BenchmarkProblem> problems;  // in benchmark.json's order (hottest first)
};

// Every key of benchmark.json is checked: a wrong type, a share past the workload, a file name
// that is not a plain name inside the folder (a '/', '..'), a problem file that is missing, not a
// regular file, larger than kMaxProblemFileBytes or a hard link, two problems of the same bytes,
// problem files of more than kMaxBenchmarkBytes in all: each is one InputError naming
// benchmark.json, the key and what was expected. Every problem's bytes are hashed; with `only`
// set, only that file's are (the others keep an empty sha256): what reach-verify needs to learn
// one problem's precision. Issue 37: 20 hard links to a sparse 1 GB file (32 KB on disk) cost
// every reader 30 s, and an unrelated 4 KB problem's verify 41 s.
constexpr int64_t kMaxProblemFileBytes = int64_t(1) << 20;  // extract writes ~10 KB
constexpr int64_t kMaxBenchmarkBytes = int64_t(64) << 20;
BenchmarkFolder readBenchmarkFolder(const std::string& dir, const std::string& only = {});

// The precision of the call an extracted problem was made from (callPrecision of its recorded
// signature: bf16, fp16, fp32, fp64, "mixed", or empty when the trace recorded no floating
// tensor): what the file says on its `# reach-precision:` line (readProblemPrecision), else, for a
// problem written before extract wrote that line, the benchmark.json of the folder the problem
// file lies in. nullopt when neither says it (a KernelBench problem). reach-verify takes it as
// the default --precision: in another one it verifies another call. A benchmark.json that is not
// one throws InputError, as readBenchmarkFolder does.
std::optional<std::string> recordedCallPrecision(const std::string& problemPath);

// Writes an extraction into `dir` (a new or empty folder, created if missing): each problem file
// and benchmark.json (extractionJson with the profile's file name and the rules classified
// with), each written whole or not at all. Returns benchmark.json's document. The one writer of
// the folder: reach-cli extract and the GUI's "Make benchmark from this workload..." call it.
// Throws InputError for a folder that holds files or cannot be written.
nlohmann::json writeBenchmarkFolder(const Extraction& extraction, const std::string& dir,
                                    const std::string& profileFileName,
                                    const std::string& rulesName, const std::string& rulesHash);

// Throws InputError (naming benchmark.json) when the benchmark was made from another profile
// than the one whose bytes hash to profileSha256.
void requireBenchmarkOf(const BenchmarkFolder& benchmark, const std::string& profilePath,
                        const std::string& profileSha256);

}  // namespace reach
