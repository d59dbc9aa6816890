#pragma once

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"
#include "ui/verifyqueue.h"

namespace reach {

// One stored verifier run (a row of the project's verifications table).
struct StoredVerification {
    int64_t id = 0;
    std::string suite, problemId, model, backend, sampleId;
    std::string verdict;
    std::vector<std::string> reasons;
    std::string json;  // the verifier's document verbatim ("" when it printed none)
    std::string verifiedAt;
};

// Keeps the GUI's verifier results in the project (schema migration 3): every run as a row with
// the verifier's full JSON, and the record's status in eval_records (matched by suite, problem,
// model, backend, sample and source file). Opens its own connection (one per thread), so it can
// be called from the GUI thread after a job without sharing the store's connection.
class VerificationStore {
public:
    // Returns the new row id. Throws InputError/SqliteError when the project cannot be written.
    static int64_t store(const QString& projectPath, const EvalRecord& record,
                         const VerifyOutcome& outcome);
    static std::vector<StoredVerification> load(const QString& projectPath);
};

}  // namespace reach
