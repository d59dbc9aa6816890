#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reach {

// What Reach's own verifier (reach-verify) said about a record's candidate. A harness's
// "correct" is a claim; only "passed" here is evidence that the kernel computes the operation.
enum class Verification { Unverified = 0, Passed = 1, Failed = 2 };

// "unverified", "passed", "failed" (JSON, SQLite, CLI).
std::string_view verificationKey(Verification v);
std::optional<Verification> verificationFromString(std::string_view s);

// Every time and speedup Reach takes from a file, of any format: positive, finite and within
// these. A time under a nanosecond is no kernel's (a leaderboard's 1e-320 printed "infx [-nan,
// -nan]"), one past 10^12 us (11.6 days) no benchmark's; a speedup outside [10^-6, 10^6] is past
// what any kernel can do against PyTorch's (absurd documents printed 300-digit numbers). Within
// them, a speedup past the suspicion threshold is flagged (core/records/suspicion.h).
constexpr double kMinRecordUs = 1e-3;
constexpr double kMaxRecordUs = 1e12;
constexpr double kMinRecordSpeedup = 1e-6;
constexpr double kMaxRecordSpeedup = 1e6;

// One evaluation: one candidate sample of one problem, produced by one model/config for one
// backend, as some harness measured it (docs/records.md has the JSONL schema). Times are in
// microseconds whatever the source used; an absent time is nullopt, never 0 or -1.
struct EvalRecord {
    std::string problemId;    // stable key within the suite: "1", "23", "dlrm-embbag-8"
    std::string problemName;  // "23_Softmax"; the KernelBench file name without ".py"
    int level = 0;            // KernelBench level 1..3; 0 when the suite has no levels
    std::string suite;        // "KernelBench", "DLRM-Bench", "Reach", ... (free text)
    std::string category;     // operator category: matmul, conv, elementwise, normalization,
                              // softmax, reduction, pooling, loss, scan, attention, embedding, ...
    std::string dtype;        // "bf16", "fp32", ... empty when unknown
    std::string model;        // model or config that wrote the candidate
    std::string backend;      // "cuda", "triton", ... empty when unknown
    std::string sampleId;     // candidate sample within (problem, model, backend)

    bool compiled = false;
    bool correct = false;  // as the harness judged it

    std::optional<double> candidateTimeUs;
    std::optional<double> baselineEagerUs;     // eager PyTorch
    std::optional<double> baselineCompileUs;   // torch.compile (Inductor)
    std::optional<double> baselineRecordedUs;  // a recorded timing (e.g. KernelBench's file)
    // Speedup over the effective baseline. Importers compute it from the times when the source
    // gives none; when the source gives one, it is kept as given (leaderboards carry only that).
    std::optional<double> speedup;

    std::string artifactPath;  // kernel source of the candidate, as the source names it
    std::string harness;       // "KernelBench", "reach-verify 0.1.0", ... with version if known
    std::string hardware;      // GPU name
    std::string date;          // ISO 8601 date or date-time of the measurement, empty if unknown

    Verification verification = Verification::Unverified;
    std::vector<std::string> verificationReasons;  // the verifier's reasons when it failed
    std::optional<double> rooflineFloorUs;         // lower bound on the time, when known

    std::string source;      // file the record was imported from
    int64_t sourceLine = 0;  // 1-based line (JSONL/CSV) or list index + 1 (JSON)
    int64_t storeId = 0;     // its row in a .reach project (eval_records.id); 0: not stored

    // The fastest of the available baselines (the study's rule); nullopt when none is known.
    std::optional<double> effectiveBaselineUs() const;
    // effective baseline / candidate time; nullopt when either is missing or not positive.
    std::optional<double> speedupFromTimes() const;
    // A win: correct and faster than the baseline (speedup > 1).
    bool isWinner() const { return correct && speedup && *speedup > 1.0; }
};

}  // namespace reach
