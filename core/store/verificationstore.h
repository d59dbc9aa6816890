#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/verify/verification.h"

namespace reach {

class ProjectStore;

// One stored verifier run (a row of the project's verifications table, schema migrations 3, 5).
struct StoredVerification {
    int64_t id = 0;
    std::optional<int64_t> recordId;
    std::string suite, problemId, model, backend, sampleId;
    std::string verdict;
    std::vector<std::string> reasons;
    std::optional<double> medianUs, speedup;
    std::string device;
    std::string json;  // the verifier's document verbatim ("" when it printed none)
    std::string verifiedAt;
    // What a batch resumes by (migration 5; empty in rows stored before it).
    std::string candidateHash, problemHash, deviceUuid, gpuIndex, batch;
};

// Where a run came from: what makes "the same job on the same GPU" recognisable later (a batch
// resumes by it, docs/batch.md). Every field left empty is filled from the result: the SHA-256
// of result.candidateFile and result.problemFile when they can be read, device.uuid and
// device.visibleDevices.
struct VerificationOrigin {
    std::string candidateHash;
    std::string problemHash;
    std::string deviceUuid;
    std::string gpuIndex;  // the CUDA_VISIBLE_DEVICES the verifier ran under
    std::string batch;     // which batch stored it ("" outside a batch)
};

// Keeps one verifier run in the project, in one transaction: a row with the verifier's full JSON
// (rawJson, verbatim; empty when the verifier printed none) and the record's own status, which
// the caller has already updated with applyVerification (core/records/recordimportverify.h).
// The record is found by the project's one record key (findStoredRecord). The GUI's Re-verify,
// `reach-cli verify --record` and batches all store through here. Returns the new row's id.
int64_t storeVerification(ProjectStore& store, const EvalRecord& record,
                          const VerificationResult& result, const std::string& rawJson,
                          double wallMs, const VerificationOrigin& origin = {});

std::vector<StoredVerification> loadVerifications(const ProjectStore& store);

// The resume key of a stored run: the same candidate bytes, problem bytes and GPU.
struct StoredRunKey {
    std::string candidateHash, problemHash, deviceUuid;
    auto operator<=>(const StoredRunKey&) const = default;
};
// Every key the project holds a run for (rows without hashes are left out).
std::vector<StoredRunKey> storedRunKeys(const ProjectStore& store);

// The batch column of every row a batch stored whose name starts with `batch` + "#" (a Slurm
// batch stores "<id>#<job index>", so a result file is imported once however often it is read).
std::vector<std::string> storedBatchEntries(const ProjectStore& store, const std::string& batch);

// The timed runs of the given (candidate, problem) pairs on every GPU, for the cross-GPU spread.
struct StoredTiming {
    StoredRunKey key;
    std::string gpuIndex;
    double medianUs = 0;
};
std::vector<StoredTiming> storedTimings(const ProjectStore& store);

}  // namespace reach
