#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/verify/verification.h"

namespace reach {

// The KernelBench-format judge's document read into a VerificationResult, part by part. The
// judge alone speaks (issue 36): the verdict, the checks, the time and the device come from its
// document and nothing else; these functions copy, and never widen, what it says. Its keys and
// types are resources/kernelbench/judge_document_schema.json, the one schema the worker's tests
// (tests/python/test_json_contract.py) and this side's (tests/core/verify/judgedocument_test.cpp,
// a recorded document) are held to. A key that is missing or of another type reads as absent.
// Used by composeKernelBench (kbverify.cpp) only.

// verdict (error when it has none), reasons (else its error), category, the compile status.
void readJudgeVerdict(VerificationResult& r, const nlohmann::json& judge);

// checks, metrics and thresholds (`problemFile` names a bad threshold).
void readJudgeChecks(VerificationResult& r, const nlohmann::json& judge,
                     const std::string& problemFile);

// timing, the baseline used (its timing, the fastest-of note; a recorded one's source and time
// from the job, which the judge only echoes), the speedup (0 unless finite) and flags.
void readJudgeTiming(VerificationResult& r, const nlohmann::json& judge, double recordedBaselineUs,
                     const std::string& recordedBaselineSource);

// The controller's own checks of the judge's report: the runner's clock against the judge's,
// and the roofline floor (`precision` picks the peak). Both only where the candidate was timed
// and judged.
void addControllerChecks(VerificationResult& r, const nlohmann::json& judge,
                         const std::string& precision);

// The device the worker saw (PyTorch's view of it), else the probe's; the CUDA runtime version.
void readJudgeDevice(VerificationResult& r, const nlohmann::json& judge,
                     const nlohmann::json& probe);

}  // namespace reach
