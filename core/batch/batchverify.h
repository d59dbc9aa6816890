#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/batch/batchjobs.h"
#include "core/batch/batchpool.h"
#include "core/project/recordjob.h"
#include "core/records/evalrecord.h"
#include "core/records/suspicion.h"

namespace reach {

class ProjectStore;

// Which records of a records file become jobs (docs/batch.md).
struct BatchSelection {
    bool suspicious = false;  // only records with a suspicion flag (as the GUI's list)
    bool unverified = false;  // only records Reach's verifier has not judged yet
    SuspicionOptions suspicion;
};

// What every job gets unless its line says otherwise.
struct BatchJobDefaults {
    std::vector<std::string> extraArgs;    // passed to every reach-verify
    std::optional<double> timeoutSeconds;  // else 60 s (C++) or 1800 s (KernelBench format)
};

// The jobs of one batch and the record each one checks (parallel vectors). A job list's pair
// gets a record of its own (suite "Reach", problem = the problem file's stem, sample = the
// candidate's file name), so its verification is stored like a record's.
struct BatchPlan {
    std::string source;  // the JOBS file
    std::string kind;    // "records", "project", "pairs"
    std::vector<BatchJob> jobs;
    std::vector<EvalRecord> records;
    std::vector<std::string> refused;  // jobs that cannot run, one line each (file, place, why)
    int leftOut = 0;                   // records the selection left out
};

// JOBS is a job list (core/batch/batchjobs.h), a .reach project (its stored records) or any
// records file Reach reads (readRecords). Records go through jobForRecord, pairs through
// jobForPair: the same trust rule as the GUI's Re-verify. Throws InputError for an unreadable
// file or a file that hashes cannot be taken of.
BatchPlan planBatch(const std::string& jobsFile, const BatchSelection& selection,
                    const RecordJobOptions& trust, const BatchJobDefaults& defaults);

// Every job once per distinct GPU of `slots`, pinned to it (--each-gpu): the cross-GPU spread.
void pinToEveryGpu(BatchPlan& plan, const std::vector<BatchSlot>& slots);

// The resume rule: drops the jobs the project holds a run for with the same candidate and
// problem bytes on the same device: for a job pinned to a GPU, that GPU's UUID; otherwise any of
// `uuids` (the batch's GPUs), or any device at all when `uuids` is empty (a Slurm batch, whose
// GPUs are the cluster's). Returns how many were dropped.
int dropDoneJobs(BatchPlan& plan, const ProjectStore& store, const std::set<std::string>& uuids,
                 const std::map<std::string, std::string>& uuidByGpu = {});

// Stores one finished job as `reach-cli verify --record` and the GUI do (applyVerification, then
// storeVerification in one transaction), with the resume key: the job's hashes and the device
// (the verifier's UUID, else the slot's). A run that judged nothing (no GPU, bad input) is not
// stored: false.
bool storeBatchResult(ProjectStore& store, EvalRecord& record, const BatchJob& job,
                      const VerificationResult& result, const std::string& rawJson, double wallMs,
                      const BatchSlot& slot, const std::string& batchId);

// The cross-GPU timing spread of the plan's jobs, from every run the project holds of them.
std::vector<TimingSpread> batchTimingSpreads(const ProjectStore& store, const BatchPlan& plan,
                                             double threshold = 0.03);

}  // namespace reach
