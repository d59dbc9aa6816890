#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/verify/verifyprocess.h"

namespace reach {

// Where a record's files may come from. A record file from a stranger names paths; Reach
// compiles and runs only what lies inside the records' folder as the user named it, a folder the
// user chose, or Reach's own resources (its problems, baselines and controls), never a path that
// leaves them.
struct RecordJobOptions {
    // The folder of the records as the user named them: the records file's folder when the
    // user gave or opened the file, the project's folder for a record stored in a project. Never
    // the record's own `source`, which is data of the project (issue 37: a stranger's project
    // with source "/records.jsonl" made every file on the machine "beside the record"); that
    // path is only one more place to look, inside the trusted folders. Empty: none is trusted.
    std::string recordDir;
    std::vector<std::string> trustedDirs;  // folders the user chose (GUI setting, CLI --trust)
    std::string kernelBenchDir;            // the user's KernelBench checkout (its problem files)
    std::string resourceDir;               // Reach's resources; findResourceDir() when empty
};

// The verify job for one record: its problem file and candidate source, resolved and checked,
// and the record's own baseline passed along (the faster of it and Reach's is used).
struct RecordJob {
    VerifyProcessRequest request;  // verifier left empty: the caller's choice
    bool kernelBenchFormat = false;
};

// nullopt with `why` (one line) when the record names no candidate, a file is missing, or a path
// leaves the trusted folders. A KernelBench-format record's job carries the precision it was
// measured in (--precision fp32|bf16|fp16; other dtypes are left to the problem). The GUI's
// Re-verify, `reach-cli verify --record` and `verify --batch` over records all use it; the limits
// come from setJobTimeout.
std::optional<RecordJob> jobForRecord(const EvalRecord& record, const RecordJobOptions& options,
                                      std::string* why);

// A verify job's limits, one rule for the GUI, `reach-cli verify` and batches: `seconds` for the
// whole of reach-verify (default 60 s, 1800 s for a KernelBench-format job, whose two Python
// workers each pay PyTorch's start-up, builds and a torch.compile baseline), and for such a job
// --worker-timeout at 45 % of it for each worker.
inline constexpr double kVerifyTimeoutSeconds = 60, kKernelBenchVerifyTimeoutSeconds = 1800;
void setJobTimeout(VerifyProcessRequest& request, bool kernelBenchFormat,
                   std::optional<double> seconds);

// The job for one line of a job list (core/batch/batchjobs.h): the problem and candidate as the
// list names them, relative to the list's folder, under the same rule: both must lie inside the
// list's folder, a folder the user chose or Reach's resources. nullopt with `why` otherwise.
std::optional<RecordJob> jobForPair(const std::string& problem, const std::string& candidate,
                                    const std::string& listFile, const RecordJobOptions& options,
                                    std::string* why);

// The trust rule for one file a stranger's document names: its resolved path (symlinks followed)
// when it is a regular file inside one of `dirs`, else nullopt. What jobForRecord applies to a
// record's files; reach-cli integrate applies it to the candidates its records name.
std::optional<std::string> trustedFileIn(const std::string& path,
                                         const std::vector<std::string>& dirs);

}  // namespace reach
