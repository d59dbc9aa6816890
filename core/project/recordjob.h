#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/verify/verifyprocess.h"

namespace reach {

// Where a record's files may come from. A record file from a stranger names paths; Reach
// compiles and runs only what lies inside the record file's own folder, a folder the user chose,
// or Reach's own resources (its problems, baselines and controls), never a path that leaves them.
struct RecordJobOptions {
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
// leaves the trusted folders. The GUI's Re-verify and `reach-cli verify --record` both use it.
std::optional<RecordJob> jobForRecord(const EvalRecord& record, const RecordJobOptions& options,
                                      std::string* why);

// The job for one line of a job list (core/verify/batchjobs.h): the problem and candidate as the
// list names them, relative to the list's folder, under the same rule: both must lie inside the
// list's folder, a folder the user chose or Reach's resources. nullopt with `why` otherwise.
std::optional<RecordJob> jobForPair(const std::string& problem, const std::string& candidate,
                                    const std::string& listFile, const RecordJobOptions& options,
                                    std::string* why);

}  // namespace reach
