#pragma once

#include <string>
#include <vector>

#include "core/records/evalrecord.h"

namespace reach {

struct VerificationResult;

// What a reach-verify result does not say about the candidate's author.
struct VerifierImportOptions {
    std::string model;  // who wrote the candidates ("hand-written", a model name); may be empty
    std::string suite = "Reach";
};

// One reach-verify result (docs/verifier.md, core/verification.h) -> one record. The verifier is
// both the harness and Reach's verifier here: correct = verdict "pass", verification = passed or
// failed. Results that measured nothing (verdict "no_gpu" or "error") throw InputError: they are
// not evaluations.
EvalRecord recordFromVerification(const VerificationResult& result, const std::string& file,
                                  int64_t place, const VerifierImportOptions& options = {});

// A file of reach-verify output: one JSON object, a JSON array of them, or one per line.
// All or nothing; errors name the file, the record and the key.
std::vector<EvalRecord> importVerifierOutput(const std::string& path,
                                             const VerifierImportOptions& options = {});

bool looksLikeVerifierOutput(const std::string& path);

// What a verifier run says about the record whose candidate it checked: passed or failed, the
// reasons (the verdict first when it is not "pass"), and the roofline floor it measured. A run
// that measured nothing ("no_gpu", "error": bad input or Reach's own failure) says nothing about
// the candidate: the record is left as it was and false is returned.
bool applyVerification(EvalRecord& record, const VerificationResult& result);

}  // namespace reach
