#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/records/evalrecord.h"
#include "core/verify/verification.h"

namespace reach {

// What a reach-verify result does not say about the candidate's author.
struct VerifierImportOptions {
    std::string model;  // who wrote the candidates ("hand-written", a model name); may be empty
    std::string suite = "Reach";
};

// One reach-verify result (docs/verifier.md, core/verify/verification.h) -> one record. The
// verifier is both the harness and Reach's verifier here: correct = verdict "pass", verification =
// passed or failed. Results that measured nothing (verdict "no_gpu" or "error") throw InputError:
// they are not evaluations.
EvalRecord recordFromVerification(const VerificationResult& result, const std::string& file,
                                  int64_t place, const VerifierImportOptions& options = {});

// One document of a file of reach-verify output, parsed, with the JSON it was parsed from (the
// parts VerificationResult does not model: a KernelBench-format run's baselines and samples).
struct VerifierDocument {
    int64_t place = 0;  // 1-based: the object in an array, or the line of a JSONL file
    VerificationResult result;
    nlohmann::json json;
};

// A file of reach-verify output: one JSON object, a JSON array of them, or one per line.
// All or nothing; errors name the file, the record and the key. Every verdict is kept.
std::vector<VerifierDocument> readVerifierDocuments(const std::string& path);

// The same file as records (recordFromVerification): all or nothing.
std::vector<EvalRecord> importVerifierOutput(const std::string& path,
                                             const VerifierImportOptions& options = {});

bool looksLikeVerifierOutput(const std::string& path);

// What a verifier run says about the record whose candidate it checked: passed or failed, the
// reasons (the verdict first when it is not "pass"), and the roofline floor it measured. A run
// that measured nothing ("no_gpu", "error": bad input or Reach's own failure) says nothing about
// the candidate: the record is left as it was and false is returned.
bool applyVerification(EvalRecord& record, const VerificationResult& result);

}  // namespace reach
