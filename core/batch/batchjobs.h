#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/verify/verifyprocess.h"

namespace reach {

// One job of a batch: a reach-verify run of one candidate on one problem (docs/batch.md).
struct BatchJob {
    int index = 0;                 // position in the batch (0-based), the same on every resume
    std::string label;             // what progress and reports name it by
    VerifyProcessRequest request;  // verifier left empty: the pool's
    bool kernelBenchFormat = false;
    // What makes it the same job later (resume): the SHA-256 of the candidate and problem files.
    std::string candidateHash;
    std::string problemHash;
    // Set: the job runs on this GPU only (--each-gpu repeats a job on every GPU to compare them).
    std::optional<std::string> pinnedGpu;
    // C++ candidates are compiled ahead on CPU workers, once per distinct candidate source.
    bool needsCompile() const { return !kernelBenchFormat; }
};

// One line of a job list: a (problem, candidate) pair and where it was written.
struct JobPair {
    std::string problem;            // as written, relative to the list's folder
    std::string candidate;          //
    std::vector<std::string> args;  // extra reach-verify arguments for this job ("args")
    std::optional<double> timeoutSeconds;
    int line = 0;  // 1-based line (text, JSONL) or array index + 1 (JSON)
};

// A job list is either JSON (an array of objects, or one object per line) with "problem" and
// "candidate" (optional "args": [string], "timeout_s": number), or text with one pair per line,
// "PROBLEM CANDIDATE", blank lines and '#' comments skipped. Throws InputError naming the file,
// the line and what was expected.
std::vector<JobPair> readJobPairs(const std::string& path);
// Whether the file reads as a job list (its first entry is a pair), not as evaluation records.
bool looksLikeJobPairs(const std::string& path);

// Fills candidateHash and problemHash from the files. Throws InputError for an unreadable file.
void hashJobFiles(BatchJob& job);

// The cross-GPU timing spread of one job: the same candidate bytes on the same problem, timed on
// several GPUs. spread = max/min - 1 of the per-GPU medians (each GPU's latest run).
struct TimingSpread {
    std::string candidateHash, problemHash;
    std::string label;
    std::map<std::string, double> medianUsByGpu;  // device UUID -> median
    double spread = 0;
    bool exceeds = false;  // spread > threshold
};
struct TimingSample {
    std::string candidateHash, problemHash, deviceUuid;
    double medianUs = 0;
};
// Groups samples (in storage order: a later sample of the same GPU replaces an earlier one) by
// candidate and problem; only groups timed on two GPUs or more are returned, largest spread
// first. labels names the groups for the report (candidate hash + " " + problem hash -> label).
std::vector<TimingSpread> timingSpreads(const std::vector<TimingSample>& samples,
                                        const std::map<std::string, std::string>& labels,
                                        double threshold = 0.03);

}  // namespace reach
