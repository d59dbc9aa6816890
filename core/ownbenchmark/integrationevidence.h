#pragma once

#include <map>
#include <optional>
#include <string>

#include "core/ownbenchmark/integration.h"
#include "core/ownbenchmark/verifiedruns.h"

namespace reach {

// reach-cli integrate's evidence at apply time (issue 37; docs/integration.md, "What it
// trusts"). A winner runs inside the user's workload, beside the profiler and the step clock, so
// it is installed only on a pass Reach signed here for the same problem and candidate bytes, the
// same precision, on this GPU and stack; any other winner (a claim, a pass signed on another
// machine) is verified again now, by reach-verify as `reach-cli verify` runs it, with a fresh
// seed nobody saw before, and installed only if that run passes.

// The GPU and the stack a KernelBench-format run on this machine would record.
struct MachineStack {
    std::string gpu;
    std::map<std::string, std::string> stack;  // python, torch, triton, cuda, cudnn
};

// `PYTHON -m reach_integrate.stack --device D` (resources/python): nullopt with `why` when it
// does not answer.
std::optional<MachineStack> probeMachineStack(const std::string& python, const std::string& device,
                                              const std::string& resourceDir, std::string* why);

// Whether `run` says it was measured on `machine`: the same GPU, and the same value for each
// stack key the machine reports.
bool measuredOn(const VerifiedRun& run, const MachineStack& machine);

struct ReverifyOptions {
    std::string verifier;                  // reach-verify; findVerifierExecutable() when empty
    std::string python;                    // the workload's interpreter: verified where it will run
    std::string device = "cuda";           // "cpu": the worker's CPU mode (tests)
    std::string outDir;                    // each re-verification's document is kept here
    std::optional<double> timeoutSeconds;  // setJobTimeout's default when none
    bool sandbox = false;                  // reach-verify --sandbox
    bool allPassing = false;               // a pass not faster than eager may be installed
    OutputGuard inputs;                    // what the command read: never written over
};

// Verifies again every winner without evidence: reach-verify on its problem and candidate with
// --seed drawn from the kernel's random source, --fresh (nothing reused from the results cache),
// the call's --precision, the workload's --python. A winner whose run passes on the same bytes
// and precision, with sigma > 1 (> 0 with allPassing), is installed on that run (kReverifiedNow,
// its sigma the new one); any other is moved to plan.left as "refused: re-verified now: ...".
// Each run's document is kept in outDir (reverify_<problem>.json). Throws InputError when no
// winner is left (naming the records file of the first refused one), or when no GPU answers.
void reverifyWinners(IntegrationPlan& plan, const ReverifyOptions& options,
                     const IntegrationProgress& progress = {});

}  // namespace reach
