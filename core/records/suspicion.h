#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/records/evalrecord.h"

namespace reach {

// Why a record deserves a rerun before anyone believes its speedup.
enum class SuspicionKind {
    ExcessiveSpeedup,     // speedup above the threshold (KernelBench flags > 10x too)
    BelowRooflineFloor,   // faster than the bytes/flops allow on this GPU
    RefutedByVerifier,    // correct by the harness, failed by Reach's verifier
    NotVerified,          // correct by the harness, never run through Reach's verifier
    DegenerateReference,  // an all-zeros output passes the harness's tolerance on this problem
};

std::string_view suspicionKey(SuspicionKind k);  // "excessive_speedup", ...

struct Suspicion {
    SuspicionKind kind;
    std::string reason;  // one line a user can act on, with the numbers that triggered it
};

// A problem whose reference output is so small that zeros pass allclose(atol=rtol=1e-2).
struct DegenerateProblem {
    std::string problemName;  // "23_Softmax"
    double maxAbsReference = 0;
    std::string evidence;  // file and GPU the measurement came from
};

struct SuspicionOptions {
    double speedupThreshold = 10.0;
    // KernelBench Level 1 problems by name (see readDegenerateProblems).
    std::map<std::string, DegenerateProblem> degenerate;
    // Roofline floor of a problem known to Reach, in microseconds; a record's own
    // rooflineFloorUs (from the verifier) is used first.
    std::function<std::optional<double>(const EvalRecord&)> floorUs;
};

// Reads the measured cases of datasets/kernelbench/kb_level1_h200_bf16.json: rows with
// "zeros_pass_allclose": true. Throws InputError naming the file and the row.
std::map<std::string, DegenerateProblem> readDegenerateProblems(const std::string& path);

// Every flag that applies to the record, in SuspicionKind order; empty when none.
std::vector<Suspicion> suspicionsFor(const EvalRecord& record, const SuspicionOptions& options);

}  // namespace reach
