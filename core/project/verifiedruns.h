#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/benchmark/exactprojection.h"
#include "core/project/benchmarkfolder.h"

namespace reach {

// Verified results for a workload's own benchmark (the exact projection's evidence): reach-verify
// documents read from files and from .reach projects, matched to the benchmark's problems by the
// SHA-256 of the problem bytes they verified, never by a file name.

// One verifier run: what the exact projection needs of it.
struct VerifiedRun {
    std::string source;      // "runs.json, record 2" or "P.reach, verification 12"
    std::string sourceFile;  // the file it was read from (runs.json, P.reach)
    std::string problemSha256, candidateSha256;
    std::string problemFile, candidateFile;
    std::string verdict;
    std::vector<std::string> reasons;
    std::optional<TimedLoop> candidate;  // the candidate's timed loop
    std::optional<TimedLoop> eager;      // the eager PyTorch baseline's, same document
    double verifierSpeedup = 0;          // the verifier's own: against its fastest baseline
    std::string verifierBaseline;        // that baseline's kind (eager, torch_compile, ...)
    std::string precision;               // the KernelBench-format worker's --precision, if said

    // eager median / candidate median: what a winner is worth on the trace's eager kernels.
    std::optional<double> sigma() const;
    bool passed() const;
};

// A run that cannot count for any problem, and why.
struct UnmatchedRun {
    std::string source;
    std::string why;
};

struct VerifiedRuns {
    std::vector<VerifiedRun> runs;        // each names the problem bytes it verified
    std::vector<UnmatchedRun> unmatched;  // without them: never matched by file name
    int read = 0;                         // every run read
};

// Each path is a .reach project (its stored verifications: the verifier's document verbatim and
// the problem hash the run was stored with), a file of reach-verify output (one document, an
// array or one per line), or a folder of such files (its .json and .jsonl files). A file that
// is not reach-verify output is an InputError naming it; a stored row whose document cannot be
// read is listed as unmatched with why.
VerifiedRuns readVerifiedRuns(const std::vector<std::string>& paths);

// What was found for one problem and which run counts.
struct ProblemRuns {
    int found = 0;  // runs of exactly this problem's bytes
    // callPrecision of the problem's signature (core/benchmark/problemsource.h; empty: any), and
    // its runs verified in another precision (reach-verify
    // casts every floating input to its --precision, fp32 unless asked): they verified another
    // call than the one the trace recorded, and never count.
    std::string precision;
    int otherPrecision = 0;
    std::string otherPrecisionSeen;       // the precision of one of them, for the message
    std::map<std::string, int> verdicts;  // how many of them had each verdict
    int slower = 0;                       // passed, but not faster than eager (sigma <= 1)
    int withoutTimings = 0;               // passed without the candidate's or eager's loop
    // The passing run with both loops and the highest sigma (a slower one when that is all
    // there is: the projection then keeps the problem at its baseline).
    std::optional<VerifiedRun> best;
};

struct BenchmarkRuns {
    std::vector<ProblemRuns> problems;    // in the benchmark's order
    std::vector<UnmatchedRun> unmatched;  // runs of no problem of this benchmark, and why
    int read = 0;
};

BenchmarkRuns matchVerifiedRuns(const BenchmarkFolder& benchmark, const VerifiedRuns& runs);

}  // namespace reach
