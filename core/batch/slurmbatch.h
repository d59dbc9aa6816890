#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/batch/batchjobs.h"
#include "core/verify/verifyprocess.h"

namespace reach {

// A batch run as one Slurm job array (docs/batch.md). Reach writes the array script and the job
// list into a directory every node can read, submits it with sbatch, and reads back what the
// tasks wrote and what Slurm itself says (squeue, sacct, scontrol); nothing of Slurm is
// reimplemented. The directory:
//   batch.json              the jobs, their slices (one per array task), the submissions
//   array.sh                the array script: each task runs `reach-cli verify --slurm-task`
//   results/job-N.json      one finished job (written whole: temporary file, then rename)
//   tasks/task-N.done       a task that finished its whole slice
//   logs/task-N-JOB.out     the task's output (Slurm's --output)

struct SlurmOptions {
    std::string partition;
    std::string gres = "gpu:1";
    std::string time;  // --time, Slurm's syntax (MM, HH:MM:SS, D-HH)
    std::string account;
    int arrayLimit = 0;   // at most this many tasks at once ("%N"); 0: Slurm's choice
    int jobsPerTask = 0;  // 0: as few as keep the array at 1000 tasks or fewer
    std::vector<std::string> sbatchArgs;  // anything else for sbatch, as given
};

struct SlurmSubmission {
    std::string jobId;      // the array's job id
    std::string arraySpec;  // "0-9%4", "3,7"
    std::string at;         // ISO 8601 UTC
};

struct SlurmBatch {
    std::string dir;  // absolute
    std::string id;   // the batch's name in the project (stored results carry "<id>#<job>")
    std::string reachCli;
    std::string verifier;
    std::vector<std::string> env;  // "NAME=value" exported by the array script
    SlurmOptions options;
    std::vector<BatchJob> jobs;
    std::vector<nlohmann::json> tags;     // per job: what the importer needs (the record), opaque
    std::vector<std::vector<int>> tasks;  // task -> positions in jobs
    std::vector<SlurmSubmission> submissions;

    std::string batchFile() const { return dir + "/batch.json"; }
    std::string scriptFile() const { return dir + "/array.sh"; }
    std::string resultFile(int job) const;  // by the job's index
    std::string doneFile(int task) const;
    nlohmann::json toJson() const;
    // Throws InputError naming the file and the key.
    static SlurmBatch read(const std::string& dir);
    // batch.json (whole, by rename), array.sh, and the folders.
    void write() const;
};

// Slices jobs into tasks (options.jobsPerTask) and fills the batch; dir is made absolute.
SlurmBatch makeSlurmBatch(const std::string& dir, const std::string& id, std::vector<BatchJob> jobs,
                          std::vector<nlohmann::json> tags, const SlurmOptions& options,
                          const std::string& reachCli, const std::string& verifier,
                          const std::vector<std::string>& env);

std::string slurmArrayScript(const SlurmBatch& batch);
// "0-3,7" with "%N" for the limit.
std::string slurmArraySpec(const std::vector<int>& tasks, int limit);
// The sbatch command line for the given tasks (--parsable, --array).
std::vector<std::string> sbatchCommand(const SlurmBatch& batch, const std::string& arraySpec);
// The job id from `sbatch --parsable` ("123" or "123;cluster") or its plain text ("Submitted
// batch job 123"); "" when there is none.
std::string parseSbatchJobId(const std::string& out);

// What Slurm says of one array task.
struct SlurmTaskState {
    std::string jobId;  // the array's job id
    int task = -1;      // SLURM_ARRAY_TASK_ID; -1 for a line that names pending tasks as a range
    std::vector<int> tasks;  // the tasks a pending range names ("123_[4-9%2]"); else {task}
    std::string state;       // PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, PREEMPTED, ...
    std::string reason;
    std::string exitCode;  // "0:0", "1:0", "0:15"
};
// `squeue -h -r -j IDS -o %i|%T|%r` (one line per task; a pending range too).
std::vector<SlurmTaskState> parseSqueue(const std::string& text);
// `sacct -n -P -X -j IDS -o JobID,State,ExitCode` ("CANCELLED by 0" keeps its first word).
std::vector<SlurmTaskState> parseSacct(const std::string& text);
// `scontrol -o show job ID` (one line per task: ArrayJobId=, ArrayTaskId=, JobState=, ...).
std::vector<SlurmTaskState> parseScontrolJobs(const std::string& text);
bool isActiveSlurmState(const std::string& state);  // pending, running, suspended, ...
// A task that ended without finishing its slice: FAILED, TIMEOUT, PREEMPTED, CANCELLED,
// NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE.
bool isFailedSlurmState(const std::string& state);

// One job's result as a task wrote it.
struct SlurmResult {
    int job = -1;
    int task = -1;
    std::string slurmJobId;
    std::string host;
    std::string gpu;  // CUDA_VISIBLE_DEVICES the task had
    VerifierRun run;  // with the verifier's stdout verbatim
};
void writeSlurmResult(const SlurmBatch& batch, const SlurmResult& result);
// Throws InputError for a file that is not a result.
SlurmResult readSlurmResult(const std::string& path);
// The job indices with a result file, ascending.
std::vector<int> slurmResultsPresent(const SlurmBatch& batch);

// What one array task runs: every job of its slice without a result file, one at a time on the
// GPU Slurm gave it, each result written as it finishes, then tasks/task-N.done. Returns how
// many jobs it ran. Throws InputError for a task the batch does not have.
int runSlurmTask(const SlurmBatch& batch, int task, std::stop_token stop = {});

}  // namespace reach
