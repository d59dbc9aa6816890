#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "core/batch/batchverify.h"

namespace reach::cli {

// `reach-cli verify --batch ...`, `--slurm-watch`, `--slurm-resubmit`, `--slurm-task`
// (docs/batch.md). cliverify.cpp adds the options to its spec and hands such a call here.
void addBatchOptions(ArgSpec& spec);
bool isBatchCall(const CliArgs& args);
int runBatchCall(const CliArgs& args, const std::vector<std::string>& trusted, CliIo& io);

// The reach-verify options every job gets (cliverify.cpp: --reps, --seed, ...).
std::vector<std::string> verifyPassThrough(const CliArgs& args);

// Shared by the pool and the Slurm path (cliverifybatch.cpp, cliverifyslurm.cpp).
BatchPlan planFromArgs(const CliArgs& args, const std::vector<std::string>& trusted);
std::string newBatchId();
std::string resultLine(const std::string& label, const VerificationResult& r,
                       const std::string& gpu);
// Requested on SIGINT or SIGTERM (Ctrl-C, scancel, a Slurm time limit): the batch stops,
// what finished stays stored.
std::stop_token interruptToken();
int runSlurmCall(const CliArgs& args, BatchPlan* plan, CliIo& io);

}  // namespace reach::cli
