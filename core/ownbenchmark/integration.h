#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/outputguard.h"
#include "core/benchmark/exactprojection.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "core/ownbenchmark/verifiedruns.h"

namespace reach {

// reach-cli integrate (issue 27; docs/integration.md): the verified winners of a workload's own
// benchmark put back into the workload, and the workload measured as it is and with them, under
// the profiler, against the exact projection for the same winners. The workload and the
// candidates are code: they run because the user named them (the workload on the command line,
// the candidates through records whose files lie in trusted folders and still hold the bytes
// that were verified).

// What a winner is installed on (issue 37; docs/integration.md, "What it trusts").
inline constexpr const char* kSignedPassHere = "signed pass here";
inline constexpr const char* kReverifiedNow = "re-verified now";

// One verified winner to install: a problem of the benchmark and the candidate that beat it.
struct IntegrationWinner {
    std::string problem;  // the benchmark's file name
    std::string op;
    std::string problemPath, candidatePath;  // resolved, inside trusted folders
    std::string problemSha256, candidateSha256;
    std::string precision;  // its recorded call's (callPrecision), empty: any
    VerifiedRun run;        // the run that made it the winner: Reach's `pass`, sigma > 1
    double sigma = 0;
    // kSignedPassHere, kReverifiedNow, or empty until reverifyWinners has verified it again
    // (core/ownbenchmark/integrationevidence.h); why it had to be, and the document of that run.
    std::string evidence;
    std::string evidenceNote;
    std::string reverifyDocument;
};

struct IntegrationPlan {
    BenchmarkFolder benchmark;
    std::vector<IntegrationWinner> winners;                 // in the benchmark's order
    std::vector<std::pair<std::string, std::string>> left;  // a problem left out, and why
};

// Each problem's fastest passing run (matchVerifiedRuns' passes) becomes a winner when its sigma
// is above 1 and its candidate file, named by the run's document, is found (absolute, or
// relative to the records file's folder or to the current folder), lies inside the records
// file's folder (named by the user on the command line), the benchmark folder or one of
// `trustedDirs`, and still holds the verified bytes. A pass signed here for which
// `measuredHere` says yes (this machine's GPU and stack) is preferred and installed as it is
// (evidence kSignedPassHere); any other, a claim or a pass signed on another machine, is left
// for reverifyWinners to verify again before it is installed. Problems without one are listed in
// `left` with why. Throws InputError (naming --records) when no problem has a winner.
// With `allPassing`, a passing run not faster than eager is installed too (to measure what a
// slower kernel costs in place; the projection still counts winners only).
IntegrationPlan planIntegration(BenchmarkFolder benchmark, const VerifiedRuns& runs,
                                const std::vector<std::string>& trustedDirs,
                                bool allPassing = false,
                                const std::function<bool(const VerifiedRun&)>& measuredHere = {});

// The plan as resources/python/reach_integrate reads it.
nlohmann::json integrationPlanJson(const IntegrationPlan& plan);

struct IntegrationOptions {
    std::vector<std::string> workload;  // PYTHON SCRIPT [ARGS...]: the user's command
    std::string device = "cuda";        // or "cpu": no GPU time, the wall clock only
    // After the warm-up, `wallSteps` steps timed with no profiler running (the wall clock: the
    // profiler's cost per recorded operator falls on the host), then `steps` profiled (the GPU
    // time). With wallSteps 0 the wall clock is read on the profiled steps.
    int warmup = 3, wallSteps = 10, steps = 10, runs = 5;
    // A third run in every pair: the overrides installed and every call falling through (the
    // module's --mode hooks), to tell what the dispatch through them costs from what the
    // candidates cost.
    bool control = false;
    // Where the overrides run (docs/integration.md, "The host path"): "native", in C++ with
    // pass-through load_inline candidates called from there, or "python" (session 16's).
    std::string hostPath = "native";
    double timeoutSeconds = 900;  // each run of the workload
    std::string outDir;           // where the plan, traces and reports are kept
    std::string resourceDir;      // empty: findResourceDir()
    std::string rulesPath;        // empty: the built-in rules
    OutputGuard inputs;           // what the command read: no run's file is written over it
};

// One run of the workload.
struct IntegrationRun {
    std::string mode;  // "asis", "substituted" or "hooks" (the control)
    int pair = 0;      // runs come in pairs (triples with the control), rotating the order
    std::string trace, reportPath;
    nlohmann::json report;               // the module's report
    std::optional<double> gpuUsPerStep;  // the trace's GPU time / steps; none without a GPU
    std::optional<double> busyUsPerStep;
    double wallUsPerStep = 0;                       // the median of its profiled steps' wall clock
    std::optional<double> wallUnprofiledUsPerStep;  // of its wall-clock steps, when it had any
    // The wall clock the gains are measured on: the steps without the profiler when measured.
    double wallClockUsPerStep() const { return wallUnprofiledUsPerStep.value_or(wallUsPerStep); }
};

// A value measured over the pairs: each pair's gain, their median and range.
struct MeasuredGain {
    std::vector<double> perPair;  // 1 - substituted / as is
    double median = 0, low = 0, high = 0;
};

// The median and range of the pairs' gains (at least one): integrate's document and its reader
// (integrationsummary, which recomputes them from the pairs) say the same numbers one way.
MeasuredGain measuredGainOf(std::vector<double> perPair);

// One mode's runs: medians per step over its runs and, against the same pair's as-is run, the
// saving (none for the as-is runs themselves).
struct IntegrationSide {
    std::optional<double> gpuUsPerStep;
    double wallUsPerStep = 0;               // IntegrationRun::wallClockUsPerStep
    double wallUnderProfilerUsPerStep = 0;  // IntegrationRun::wallUsPerStep
    std::optional<MeasuredGain> gpuGain, wallGain, wallUnderProfilerGain;
};

struct IntegrationResult {
    IntegrationPlan plan;
    IntegrationOptions options;
    std::vector<IntegrationRun> runs;
    IntegrationSide asIs, substituted;
    std::optional<IntegrationSide> hooks;  // with the control: the overrides alone
    // The exact projection for the same winners on the first as-is run's own trace (each
    // problem's share found there by its call signature); none without GPU time.
    std::optional<ExactProjection> projection;
    std::vector<double> sharesInRun;  // per benchmark problem, in its order
    nlohmann::json diff;              // reach-cli diff of the first pair, projection_check filled
    std::vector<std::string> warnings;
};

// Something the workload did: it failed, a substituted call disagreed with the operator, a run
// marked too few steps. Bad input stays InputError.
struct IntegrationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

using IntegrationProgress = std::function<void(const std::string&)>;

IntegrationResult runIntegration(IntegrationPlan plan, const IntegrationOptions& options,
                                 const IntegrationProgress& progress = {});

// docs/integration.md's document.
nlohmann::json integrationJson(const IntegrationResult& result);

}  // namespace reach
