#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/base/category.h"

namespace reach {

// The workload's own benchmark (docs/benchmark.md): a category's kernel time grouped by the
// operator call that launched it (the ATen operator and its recorded arguments), hottest first,
// each group turned into a KernelBench-format problem until `cover` of the category's time is
// covered.
// At most this many problems are written (the hottest): a 556 KB trace of tiny distinct calls
// made 18000 files, past what Reach's own benchmark reader takes (10000). A real workload's
// cover is reached in tens to hundreds; the signatures past the cap are counted, as those past
// the cover are. Each problem's header names at most kMaxHeaderKernels of its kernels.
constexpr size_t kMaxExtractedProblems = 1000;
constexpr size_t kMaxHeaderKernels = 20;

struct ExtractOptions {
    double cover = 0.9;
    std::optional<Category> category = Category::Addressable;  // nullopt: every kernel
};

// One kernel of the trace under one operator call signature.
struct ExtractedKernel {
    std::string name;
    int64_t calls = 0;
    double us = 0;
};

// One operator call signature: what its kernels took, and how many calls launched them.
struct SignatureGroup {
    std::string op;
    std::string signature;  // the JSON core/trace keeps ({"dims", "types", "concrete", ...})
    double us = 0;
    int64_t opCalls = 0;
    std::vector<ExtractedKernel> kernels;  // largest first
};

struct ExtractedProblem {
    SignatureGroup group;
    std::string file;    // "001_addmm_3f2a9c1e.py"
    std::string source;  // the whole file
    std::vector<std::string> assumptions;
};

struct SkippedSignature {
    SignatureGroup group;
    std::string why;
};

struct Extraction {
    std::string profile, profileSha256, device;
    std::optional<Category> category;
    double cover = 0.9;
    double gpuUs = 0;       // the workload's GPU time
    double categoryUs = 0;  // the category's kernel time (every kernel's without a category)
    double shapedUs = 0;    // of it, under an operator call with recorded shapes
    double coveredUs = 0;   // of it, under the problems written
    std::vector<ExtractedProblem> problems;  // hottest first
    std::vector<SkippedSignature> skipped;   // hotter than the last problem, not made
    std::vector<SignatureGroup> notReached;  // colder than the cover asked for, or past the cap
    bool capped = false;                     // stopped at kMaxExtractedProblems

    double coveredShare() const { return categoryUs > 0 ? coveredUs / categoryUs : 0; }
};

// What was skipped, one line per operator and reason: the signatures of one operator (shapes
// differ) skipped for the same reason, their time summed, hottest first. What a reader is told
// (reach-cli extract); benchmark.json keeps every signature.
struct SkippedOperator {
    std::string op, why;
    double us = 0;
    int signatures = 0;
};
std::vector<SkippedOperator> skippedByOperator(const Extraction& e);

// A category's kernel time grouped by operator call signature, hottest first (ties by operator
// and signature): what extractBenchmark writes problems of, and what reach-cli integrate finds
// each problem's share of a run by.
struct SignatureGroups {
    std::vector<SignatureGroup> hottest;
    double categoryUs = 0;  // the category's kernel time (every kernel's without a category)
    double shapedUs = 0;    // of it, under an operator call with recorded shapes
};
SignatureGroups groupBySignature(const Breakdown& breakdown,
                                 const std::optional<Category>& category);

// Groups every kernel of the category by operator call signature and writes problems, hottest
// first, until the cover is reached. Pure: the caller writes the files.
Extraction extractBenchmark(const Breakdown& breakdown, const ExtractOptions& options);

// benchmark.json: the profile, the category, the covered share, each problem (file, operator,
// signature, kernels with calls and GPU time and their share of the workload), what was skipped
// and why.
nlohmann::json extractionJson(const Extraction& e);

}  // namespace reach
