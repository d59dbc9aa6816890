#include "core/records/suspicion.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"

namespace reach {

namespace {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

}  // namespace

std::string_view suspicionKey(SuspicionKind k) {
    switch (k) {
        case SuspicionKind::ExcessiveSpeedup:
            return "excessive_speedup";
        case SuspicionKind::BelowRooflineFloor:
            return "below_roofline_floor";
        case SuspicionKind::RefutedByVerifier:
            return "refuted_by_verifier";
        case SuspicionKind::NotVerified:
            return "not_verified";
        case SuspicionKind::DegenerateReference:
            return "degenerate_reference";
    }
    return "unknown";
}

std::map<std::string, DegenerateProblem> readDegenerateProblems(const std::string& path) {
    const std::string expected = "expected kb_level1_*.json measurements (a JSON object)";
    nlohmann::json doc = parseJson(readJsonFile(path, expected), path, expected);
    if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array()) {
        throw InputError(path, "key \"rows\"", "expected an array of measured problems");
    }
    const std::string gpu = doc.value("gpu", std::string());
    const std::string evidence =
        std::filesystem::path(path).filename().string() + (gpu.empty() ? "" : ", " + gpu);
    std::map<std::string, DegenerateProblem> out;
    for (size_t i = 0; i < doc["rows"].size(); ++i) {
        const auto& row = doc["rows"][i];
        const std::string place = "rows[" + std::to_string(i) + "]";
        if (!row.is_object() || !row.contains("problem") || !row["problem"].is_string() ||
            !row.contains("zeros_pass_allclose") || !row["zeros_pass_allclose"].is_boolean()) {
            throw InputError(path, place,
                             "expected \"problem\" (string) and \"zeros_pass_allclose\" (boolean)");
        }
        if (!row["zeros_pass_allclose"].get<bool>())
            continue;
        DegenerateProblem p;
        p.problemName = row["problem"].get<std::string>();
        if (row.contains("max_abs_ref") && row["max_abs_ref"].is_number()) {
            p.maxAbsReference = row["max_abs_ref"].get<double>();
        }
        p.evidence = evidence;
        out[p.problemName] = p;
    }
    return out;
}

std::vector<Suspicion> suspicionsFor(const EvalRecord& r, const SuspicionOptions& options) {
    std::vector<Suspicion> out;
    if (r.speedup && *r.speedup > options.speedupThreshold) {
        out.push_back(
            {SuspicionKind::ExcessiveSpeedup, "speedup " + fmt("%.3g", *r.speedup) + "x is above " +
                                                  fmt("%.3g", options.speedupThreshold) +
                                                  "x: check that it computes the whole output"});
    }
    std::optional<double> floor = r.rooflineFloorUs;
    if (!floor && options.floorUs)
        floor = options.floorUs(r);
    if (floor && r.candidateTimeUs && *r.candidateTimeUs < *floor) {
        out.push_back({SuspicionKind::BelowRooflineFloor,
                       "candidate time " + fmt("%.4g", *r.candidateTimeUs) +
                           " us is below the roofline floor of " + fmt("%.4g", *floor) +
                           " us: it cannot have moved all the bytes"});
    }
    if (r.correct && r.verification == Verification::Failed) {
        std::string why;
        for (const auto& reason : r.verificationReasons)
            why += (why.empty() ? "" : "; ") + reason;
        out.push_back({SuspicionKind::RefutedByVerifier,
                       "correct by the harness but failed by Reach's verifier" +
                           (why.empty() ? std::string() : ": " + why)});
    }
    if (r.correct && r.verification == Verification::Unverified) {
        out.push_back({SuspicionKind::NotVerified,
                       "correct by the harness only; not yet run through Reach's verifier"});
    }
    // The measurements are of KernelBench Level 1; another suite's "23_Softmax" is not the same
    // problem.
    const bool level1 = r.level == 1 || (r.level == 0 && r.suite == "KernelBench");
    if (r.correct && level1) {
        if (auto it = options.degenerate.find(r.problemName); it != options.degenerate.end()) {
            out.push_back({SuspicionKind::DegenerateReference,
                           "degenerate reference: an all-zeros output passes allclose(atol=rtol="
                           "1e-2) on this problem (max |ref| = " +
                               fmt("%.3g", it->second.maxAbsReference) + ", " +
                               it->second.evidence + ")"});
        }
    }
    return out;
}

}  // namespace reach
