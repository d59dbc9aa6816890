#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/verify/verification.h"

namespace reach {

class ProjectStore;

// One stored verifier run (a row of the project's verifications table, schema migration 3).
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
};

// Keeps one verifier run in the project, in one transaction: a row with the verifier's full JSON
// (rawJson, verbatim; empty when the verifier printed none) and the record's own status, which
// the caller has already updated with applyVerification (core/records/recordimportverify.h).
// The record is found by the project's one record key (findStoredRecord). The GUI's Re-verify
// and `reach-cli verify --record` both store through here. Returns the new row's id.
int64_t storeVerification(ProjectStore& store, const EvalRecord& record,
                          const VerificationResult& result, const std::string& rawJson,
                          double wallMs);

std::vector<StoredVerification> loadVerifications(const ProjectStore& store);

}  // namespace reach
