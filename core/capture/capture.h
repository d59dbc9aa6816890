#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/analysis/ruleset.h"
#include "core/benchmark/extract.h"

namespace reach {

// reach-cli profile (issue 41, item 3; docs/capture.md): a workload run under the PyTorch
// profiler as extraction needs it (shapes recorded, CPU and CUDA activities), its steps marked as
// integrate marks them (reach_step(), the workload's own prof.step(), else its optimizer's
// steps, else the whole run), the trace written gzip-compressed, and what it can serve: the
// breakdown, what extraction would cover, and what to change when it cannot.

struct CaptureOptions {
    std::vector<std::string> workload;  // PYTHON SCRIPT [ARGS...]
    std::string device = "cuda";        // "cuda" or "cpu"
    int warmup = 2, steps = 5;
    std::string out;  // the trace to write (.json.gz); a file the command does not read
    double timeoutSeconds = 1800;
    std::string resourceDir;  // Reach's resources (findResourceDir when empty)
};

// The workload failed (raised, exited non-zero, ran past the timeout, was cancelled): the data
// says no, not bad input.
struct CaptureFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Capture {
    std::string trace;     // the gzip-compressed trace written
    std::string device;    // "cuda" or "cpu", as recorded
    std::string marker;    // "reach_step", "prof.step", "optimizer" or "none"
    std::string profiled;  // "steps", "partial" (fewer steps than asked) or "whole"
    int stepsMarked = 0, profiledSteps = 0;
    std::vector<double> wallUs;  // each profiled step's wall clock (the device synchronized)
    int operatorCalls = 0, shapedCalls = 0;  // ATen calls recorded, and with input shapes
    // Foreach operators (an optimizer's multi-tensor step) whose tensor lists were recorded
    // empty: the operator and its calls.
    std::vector<std::pair<std::string, int>> foreachUnrecorded;
    std::string torchVersion;
    std::string workloadLog;  // the workload's output, its last lines
    double seconds = 0;
};

using CaptureProgress = std::function<void(const std::string&)>;

// Runs the workload (resources/python/reach_integrate/capture.py under the user's interpreter)
// and writes the trace. Throws InputError for bad input (no interpreter, a script that is not
// a file, an output that cannot be written, --device cuda without a GPU) and CaptureFailed when
// the workload fails. `stop` cancels it (the workload's process group is killed).
Capture captureWorkload(const CaptureOptions& options, const CaptureProgress& progress = {},
                        std::stop_token stop = {});

// What a recording serves: the breakdown and the extraction at the default cover (a GPU
// recording), and the advice: what to change so extraction can use it.
struct CaptureReview {
    std::optional<Breakdown> breakdown;    // none for a CPU recording: there is no GPU time
    std::optional<Extraction> extraction;  // the default cover (0.9) of the addressable time
    std::vector<std::string> advice;
};
// `workload` is the trace as read (the caller reads it once, and imports the same reading into a
// project); nullptr for a CPU recording, which has no GPU time to read.
CaptureReview reviewCapture(const Capture& capture, const Workload* workload, const RuleSet& rules);

// One JSON document (docs/cli.md, "profile").
nlohmann::json captureJson(const Capture& capture, const CaptureReview& review);

}  // namespace reach
