#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/batch/slurmbatch.h"
#include "core/records/evalrecord.h"
#include "core/verify/childprocess.h"
#include "core/verify/verification.h"

namespace reach {

class ProjectStore;

// What a Slurm batch keeps of the record a job checks, so the watcher (another process, maybe
// days later) stores the result against it: the record's key, never its numbers.
nlohmann::json recordTag(const EvalRecord& record);
EvalRecord recordFromTag(const nlohmann::json& tag);

// One array task as the watcher last saw it.
struct SlurmTaskReport {
    int task = 0;
    std::string jobId;
    std::string state;  // Slurm's; "ENDED" when Slurm no longer knows it (no accounting)
    std::string reason;
    std::string exitCode;
    int jobs = 0;     // in its slice
    int missing = 0;  // of which no result file exists
    bool active() const { return isActiveSlurmState(state); }
};

// One result file read back.
struct SlurmImport {
    int job = -1;
    std::string label;
    VerificationResult result;
    std::string rawJson;
    std::string host, gpu;
    bool stored = false;
    std::string skipped;  // why it was not stored ("" when it was)
};

// Watches a submitted batch: imports results as they land (each once: the project remembers
// "<batch id>#<job>"; and the resume rule: a run of the same candidate and problem bytes on the
// same GPU already stored is not stored again), asks Slurm what each task is doing, and
// resubmits the tasks that ended without finishing. Slurm's commands run through `runner`
// (runChild by default; tests give captured outputs).
class SlurmWatcher {
public:
    using Runner = std::function<ChildResult(const std::vector<std::string>&)>;

    SlurmWatcher(SlurmBatch batch, ProjectStore* store, Runner runner = {});

    const SlurmBatch& batch() const { return m_batch; }

    // Submits the tasks (every task when empty) with sbatch, records the submission in
    // batch.json, returns the array's job id. Throws InputError with sbatch's own line.
    std::string submit(const std::vector<int>& tasks = {});

    // Reads every result file not read yet.
    std::vector<SlurmImport> importNew();

    // What Slurm says of each task of its latest submission: squeue for the live ones, then
    // sacct, then scontrol for the ended ones. Throws InputError when squeue cannot be asked.
    std::vector<SlurmTaskReport> poll();

    // The tasks to resubmit: ended (failed, timed out, preempted, cancelled, or unknown) with
    // jobs that have no result.
    static std::vector<int> unfinished(const std::vector<SlurmTaskReport>& tasks);

    int imported() const { return m_imported; }
    int jobsWithResults() const { return int(m_read.size()); }

private:
    ChildResult run(const std::vector<std::string>& argv) const;
    std::map<int, std::string> latestJobIdByTask() const;

    SlurmBatch m_batch;
    ProjectStore* m_store;
    Runner m_runner;
    std::set<int> m_read;          // job indices whose result file was read
    std::set<std::string> m_tags;  // "<id>#<job>" stored in the project
    int m_imported = 0;
};

}  // namespace reach
