#pragma once

#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "core/batch/batchjobs.h"
#include "core/verify/verification.h"
#include "core/verify/verifyprocess.h"

namespace reach {

// One GPU worker of a batch. A GPU named twice runs two jobs at once (--jobs-per-gpu 2); their
// timed loops still take turns (GpuTimingLock).
struct BatchSlot {
    std::string gpu;   // CUDA_VISIBLE_DEVICES for its jobs; "" keeps the environment's (Slurm)
    std::string uuid;  // the device's UUID (reach-verify --device-info), "" when unknown
    std::string name;  // "NVIDIA H200"
    std::string arch;  // "sm_90"
};

struct BatchPoolOptions {
    std::string verifier;          // reach-verify (findVerifierExecutable)
    std::vector<BatchSlot> slots;  // at least one
    // CPU workers that compile C++ candidates ahead of the GPU workers (reach-verify
    // --compile-only --arch), once per distinct candidate source; 0 or no arch: none.
    int compileWorkers = 0;
    std::string compileArch;
    double compileTimeoutSeconds = 600;
    // Where the per-GPU timing locks live ("" for none): every Reach batch on the host names the
    // same file for the same GPU, so two batches never time on one GPU at once either.
    std::string lockDir = "/tmp";
    std::vector<std::string> env;  // "NAME=value" for every job (REACH_CACHE_DIR, ...)
};

// One finished job, handed to the caller on the thread that called runBatch.
struct BatchOutcome {
    const BatchJob* job = nullptr;
    int slot = 0;  // index into BatchPoolOptions::slots
    VerificationResult result;
    VerifierRun run;  // what the process did (its stdout verbatim, for storing)
    // It ran out of GPU memory beside another job on its GPU and was run again alone: `result`
    // is the second run's.
    bool retried = false;
};

struct BatchProgress {
    int total = 0;    // jobs of this run (after resume skipped some)
    int skipped = 0;  // jobs resume found done before the run
    int done = 0;     // finished in this run
    int failed = 0;   // of which the verdict is not "pass"
    int running = 0;
    int compiled = 0;  // candidates compiled ahead
    double elapsedSeconds = 0;
    std::vector<int> donePerSlot;
    std::map<std::string, int> verdicts;

    int remaining() const { return total - done; }
    double jobsPerHour() const;
    double etaSeconds() const;  // -1 when nothing finished yet
    // One line for stderr: "batch: 12/40 done (2 failed), 28 left, 1 running, 310 jobs/h,
    // ~5.4 min left; per GPU 0:7 1:5".
    std::string line(const std::vector<BatchSlot>& slots = {}) const;
};

// Runs every job: each in its own reach-verify process (runVerifierProcess, the job's timeout)
// on one GPU worker. onResult is called on the calling thread, one outcome at a time, in the
// order they finish, so the caller can store each result in its own transaction as it arrives;
// onProgress after each. An exception from either stops the workers (their processes killed)
// and is rethrown; so does a stop request, without throwing: runBatch returns with the jobs not
// yet reported undone (a resume runs them). A verifier killed by SIGTERM, SIGINT or SIGHUP
// (scancel, a time limit, an operator: not the candidate) is left undone the same way.
void runBatch(const std::vector<BatchJob>& jobs, const BatchPoolOptions& options,
              const std::function<void(const BatchOutcome&)>& onResult,
              const std::function<void(const BatchProgress&)>& onProgress = {},
              std::stop_token stop = {}, int skipped = 0);

// The GPU workers for `gpus` ("all", or a list "0,1,3"), jobsPerGpu each. Each GPU is asked
// for its UUID, name and arch with `verifier --device-info` under its CUDA_VISIBLE_DEVICES (in
// parallel); "all" is every GPU the verifier sees (the entries of CUDA_VISIBLE_DEVICES when
// set, else 0..n-1). Throws InputError ("device: a GPU to verify on (...)") when a GPU named does
// not answer.
std::vector<BatchSlot> batchSlots(const std::string& verifier, const std::string& gpus,
                                  int jobsPerGpu);

}  // namespace reach
