#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/base/evidence.h"
#include "core/benchmark/exactprojection.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/verify/verification.h"

namespace reach {

// Verified results for a workload's own benchmark (the exact projection's evidence): reach-verify
// documents read from files and from .reach projects, matched to the benchmark's problems by the
// SHA-256 of the problem bytes they verified, never by a file name. Each is "verified here" when
// it carries the signature of this user's key (core/base/evidence.h), else a claim: a claim is
// listed, never counted (issue 37).

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
    // Whether Reach signed this document here, and the GPU and stack it says it was measured on:
    // the device's name, and the versions that make a timing (KernelBench format: python,
    // torch, triton, cuda, cudnn; C++: driver, runtime, nvcc).
    Evidence evidence;
    std::string gpu;
    std::map<std::string, std::string> stack;
    // The eager loop is the trace's own time per call, not the document's eager baseline: a
    // serving stack's operator, whose problem's reference is not the kernel the workload ran
    // (core/ownbenchmark/exactprojectionreport.h).
    bool eagerFromTrace = false;

    // eager median / candidate median: what a winner is worth on the trace's eager kernels.
    std::optional<double> sigma() const;
    bool passed() const;
};

// One reach-verify document as a run: its verdict, loops, precision, evidence, GPU and stack.
// `source` says where it came from ("runs.json, record 2").
VerifiedRun verifiedRunOf(const VerificationResult& result, const nlohmann::json& document,
                          std::string source);

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
    int claimed = 0;  // passed with both loops, but not signed here: never counted
    // Every pass with both loops in the call's precision, signed or not, highest sigma first.
    std::vector<VerifiedRun> passes;
    // The signed pass with the highest sigma (a slower one when that is all there is: the
    // projection then keeps the problem at its baseline). Only it counts.
    std::optional<VerifiedRun> best;
    // The claimed pass with the highest sigma, shown as what it is.
    std::optional<VerifiedRun> bestClaimed;
};

struct BenchmarkRuns {
    std::vector<ProblemRuns> problems;    // in the benchmark's order
    std::vector<UnmatchedRun> unmatched;  // runs of no problem of this benchmark, and why
    int read = 0;
    int signedHere = 0, claimed = 0;  // of the runs read
    // Every run read that names its problem bytes, and how it is taken: verified here, or a
    // claim and why (each input shown as what it is, text and JSON).
    struct Input {
        std::string source;
        Evidence evidence;
        std::string gpu;
    };
    std::vector<Input> inputs;
    // A problem whose bytes an earlier problem has: "B.py: the same bytes as A.py".
    std::vector<std::string> duplicates;
};

// Each run counts for one problem at most: two problems of the same bytes (a folder edited by
// hand) share the first one's runs, and the second is listed in `duplicates`.
BenchmarkRuns matchVerifiedRuns(const BenchmarkFolder& benchmark, const VerifiedRuns& runs);

}  // namespace reach
