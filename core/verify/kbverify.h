#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verify/sandbox.h"
#include "core/verify/verification.h"

namespace reach {

// A KernelBench-format job: a problem file with Model/get_inputs/get_init_inputs and a candidate
// with ModelNew (both Python). reach-verify runs the Python worker (resources/python/,
// docs/kernelbench.md) twice, each in its own child process with a timeout: first `reach`, the
// judge (Reach's oracle and the judge's own clock; the candidate runs in a runner process the
// judge forks), whose document alone gives the verdict, the time, "no GPU", a bad-input answer
// and what the results cache keeps; then, where the judge judged the candidate, `kernelbench`
// (KernelBench's own verdict and time, reproduced in a process the candidate runs in, as
// KernelBench does): a report, kept beside the verdict (kbreport.h), deciding nothing.
struct KernelBenchJob {
    std::string problemFile;
    std::string candidateFile;
    std::string python;              // the interpreter (findPython)
    std::string worker;              // resources/python/reach_kbworker.py
    std::string precision = "fp32";  // fp32, bf16, fp16
    std::optional<uint64_t> seed;    // Reach's fresh inputs use seed, seed+1, ... (seedCount)
    int seedCount = 3;
    int reps = 100;
    int warmup = 10;
    double timeoutSeconds = 900;        // each worker process's own work
    double queueLimitSeconds = 600;     // each worker's waits for the GPU (queueclock.h)
    std::optional<double> kbTolerance;  // KernelBench's tolerance (older versions: 1e-2)
    double recordedBaselineUs = 0;      // a recorded baseline (KernelBench timing JSON)
    std::string recordedBaselineSource;
    std::string cacheDir;         // load_inline, Triton and Inductor builds
    std::string device = "cuda";  // "cpu": the worker's test mode (CI, no GPU)
    bool timing = true;
    bool compileBaseline = true;  // time torch.compile(Model) as a baseline too
    // Measure everything again. Otherwise the worker reuses what depends only on the files, the
    // options and the stack (KernelBench's verdict, the baselines' times, the kernel census;
    // resources/python/reach_kb/resultcache.py); Reach's checks and timing always run again.
    bool fresh = false;
    std::string thresholdsFile;
    // --sandbox: every Python worker (KernelBench's reproduction, the judge and the runner it
    // forks) runs under bubblewrap with these binds (command empty: filled per worker);
    // reach-verify itself, which alone writes the results cache, stays outside.
    std::optional<SandboxSpec> sandbox;
    // After each worker, kill every child process of the caller that is left (processguard.h):
    // for reach-verify, which runs one job and is the subreaper of its workers' orphans.
    bool killLeftovers = false;
};

// Both files end in .py: the KernelBench format (a .json problem and a .cu candidate are
// Reach's own format).
bool isKernelBenchFormat(const std::string& problemFile, const std::string& candidateFile);

// The interpreter: `given` (--python) when set, else $REACH_PYTHON, else "python3" (PATH).
std::string findPython(const std::string& given);

// What one worker process did: how it ended and the one JSON object it printed (null if none).
struct WorkerOutcome {
    bool started = true;
    std::string startError;
    bool timedOut = false;
    bool gpuBusy = false;     // killed after waiting for the GPU past the queue limit
    double queueSeconds = 0;  // of `seconds`, waiting for the GPU
    int exitCode = 0;
    int termSignal = 0;
    std::string err;  // stderr, whole
    nlohmann::json doc;
    double seconds = 0;
};

// The composition, pure (tested without Python): the result's verdict is Reach's ("reach", the
// judge's document), with the controller's own checks added: the clock agreement between the
// runner's times and the judge's (verdictpolicy.h) and the roofline floor; KernelBench's verdict
// rides along as a report ("kernelbench", kbreport.h), and `fooled` is set when that report
// calls the candidate correct and Reach does not. A judge that crashed or hung is "crashed" /
// "timeout"; a KernelBench reproduction that did is only said in its report.
VerificationResult composeKernelBench(const KernelBenchJob& job, const nlohmann::json& probe,
                                      const WorkerOutcome& kernelbench, const WorkerOutcome& reach);

// Runs the whole job. Throws InputError (exit 2 for reach-verify) for bad input the judge
// reports (a problem without Model, a syntax error in the problem, an unreadable file) and for
// an interpreter without PyTorch ("no PyTorch in /usr/bin/python3"); no GPU is the verdict
// "no_gpu", an ordinary answer. What KernelBench's reproduction says (its exit status, "no
// GPU", its cache entries) never ends or decides the job.
VerificationResult runKernelBenchJob(const KernelBenchJob& job);

}  // namespace reach
