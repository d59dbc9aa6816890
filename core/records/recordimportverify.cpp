#include "core/records/recordimportverify.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/records/recordimport.h"
#include "core/records/recordprojection.h"
#include "core/verify/operators.h"
#include "core/verify/verification.h"

namespace reach {

namespace {

using nlohmann::json;

bool isVerifierObject(const json& j) {
    return j.is_object() && ((j.contains("schema") && j["schema"] == "reach.verification") ||
                             (j.contains("verdict") && j.contains("problem_id")));
}

std::string categoryForOp(const std::string& op) {
    if (op.empty())
        return {};
    try {
        const std::string family = operatorFor(op).family();
        const auto& map = defaultFamilyCategories();
        auto it = map.find(family);
        return it == map.end() ? family : it->second;
    } catch (const std::exception&) {
        return {};  // an operator this build does not know: no category rather than a wrong one
    }
}

std::optional<double> positive(double v) {
    return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

// A KernelBench-format result carries two verdicts: KernelBench's own (the harness's claim, the
// record's `correct`) and Reach's (its `verification`). Where they disagree, Reach's verifier
// refuted the harness: the record is flagged (suspicion refuted_by_verifier, "fooled").
void applyKernelBenchVerdict(EvalRecord& r, const VerificationResult& v) {
    const json& kb = v.kernelbench;
    const json& re = v.reachOracle;
    r.correct = kb.is_object() && kb.value("correctness", false);
    r.compiled = kb.is_object() ? kb.value("compiled", false) : r.compiled;
    if (re.is_object()) {
        if (re.contains("kernelbench_category") && re["kernelbench_category"].is_string())
            r.category = re["kernelbench_category"].get<std::string>();
        if (re.contains("backend") && re["backend"].is_string())
            r.backend = re["backend"].get<std::string>();
        r.baselineEagerUs.reset();
        for (const auto& b : re.value("baselines", json::array())) {
            if (!b.contains("us") || !b["us"].is_number())
                continue;
            const double us = b["us"].get<double>();
            const std::string kind = b.value("kind", std::string());
            if (kind == "eager")
                r.baselineEagerUs = positive(us);
            else if (kind == "torch_compile")
                r.baselineCompileUs = positive(us);
            else if (kind == "recorded")
                r.baselineRecordedUs = positive(us);
        }
    }
    // Level and problem number from a KernelBench problem file name ("23_Softmax.py").
    const std::string stem = std::filesystem::path(v.problemFile).stem().string();
    size_t digits = 0;
    while (digits < stem.size() && std::isdigit(static_cast<unsigned char>(stem[digits])))
        ++digits;
    if (digits > 0 && digits < stem.size() && stem[digits] == '_') {
        r.suite = "KernelBench";
        r.problemId = stem.substr(0, digits);
        r.problemName = stem;
        const std::string path = v.problemFile;
        for (int level = 1; level <= 3; ++level) {
            if (path.find("level" + std::to_string(level)) != std::string::npos)
                r.level = level;
        }
    }
    std::string kbText = "KernelBench (reproduced): ";
    kbText += r.correct ? "correct" : "incorrect";
    if (kb.is_object() && kb.contains("correctness_trials") && kb["correctness_trials"].is_string())
        kbText += " " + kb["correctness_trials"].get<std::string>();
    r.harness = kbText + "; Reach: " + v.verdict + " (reach-verify, KernelBench format)";
}

}  // namespace

EvalRecord recordFromVerification(const VerificationResult& v, const std::string& file,
                                  int64_t place, const VerifierImportOptions& options) {
    const std::string where = "record " + std::to_string(place);
    if (v.verdict == verdict::kNoGpu || v.verdict == verdict::kError) {
        throw InputError(file, where + ", key \"verdict\"",
                         "is \"" + v.verdict +
                             "\": the verifier measured nothing, expected a "
                             "verdict of pass, fail, compile_error, crashed or timeout");
    }
    EvalRecord r;
    r.problemId = v.problemId;
    if (r.problemId.empty() && !v.problemFile.empty()) {
        r.problemId = std::filesystem::path(v.problemFile).stem().string();
    }
    r.problemName = r.problemId;
    r.suite = options.suite;
    r.category = categoryForOp(v.op);
    r.dtype = v.dtype;
    r.model = options.model;
    r.backend = "cuda";  // reach-verify compiles CUDA C++ candidates (DESIGN.md)
    r.sampleId = std::filesystem::path(v.candidateFile).stem().string();
    r.compiled = v.compile.status == "ok" || v.compile.status == "cached";
    r.correct = v.passed();
    r.verification = v.passed() ? Verification::Passed : Verification::Failed;
    r.verificationReasons = v.reasons;
    if (v.timing)
        r.candidateTimeUs = positive(v.timing->medianUs);
    std::string baselineKind;
    if (v.baseline) {
        baselineKind = v.baseline->kind;
        // The verifier times its baseline on the spot (cuBLAS or a reference kernel): that is the
        // measured baseline slot; a recorded time it was given goes to the recorded slot.
        if (v.baseline->timing)
            r.baselineEagerUs = positive(v.baseline->timing->medianUs);
        r.baselineRecordedUs = positive(v.baseline->recordedUs);
    }
    r.speedup = positive(v.speedup);
    if (v.roofline)
        r.rooflineFloorUs = positive(v.roofline->floorUs);
    r.artifactPath = v.candidateFile;
    r.harness = "reach-verify (schema " + std::to_string(v.schemaVersion) +
                (baselineKind.empty() ? "" : ", baseline " + baselineKind) +
                (v.timing && v.timing->l2Flushed ? ", cold L2" : "") + ")";
    if (v.kernelBenchFormat())
        applyKernelBenchVerdict(r, v);
    r.hardware = v.device.name;
    r.date = v.startedAt;
    r.source = file;
    r.sourceLine = place;
    finishRecord(r, file, where);
    return r;
}

std::vector<VerifierDocument> readVerifierDocuments(const std::string& path) {
    const std::string text = readJsonFile(path, "expected reach-verify output (JSON)");
    // Limits first, over the whole text, so an error names its byte offset whether the file is
    // one document or one per line; after them no parse can go deep or meet a bad number.
    if (auto e = checkJsonLimits(text))
        throw InputError(path, "byte " + std::to_string(e->offset), e->what);
    std::vector<std::pair<int64_t, json>> docs;
    json whole = json::parse(text, nullptr, false);
    if (!whole.is_discarded()) {
        if (whole.is_array()) {
            for (size_t i = 0; i < whole.size(); ++i)
                docs.emplace_back(i + 1, whole[i]);
        } else {
            docs.emplace_back(1, whole);
        }
    } else {
        std::istringstream lines(text);
        std::string line;
        int64_t n = 0;
        while (std::getline(lines, line)) {
            ++n;
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue;
            docs.emplace_back(n, parseJson(line, path, "expected a reach-verify JSON document", n));
        }
    }
    std::vector<VerifierDocument> out;
    for (auto& [place, doc] : docs) {
        if (!isVerifierObject(doc)) {
            throw InputError(path, "record " + std::to_string(place),
                             "expected a reach-verify result (keys \"verdict\", \"problem_id\")");
        }
        VerificationResult v = VerificationResult::fromJson(doc, path);
        out.push_back({place, std::move(v), std::move(doc)});
    }
    return out;
}

std::vector<EvalRecord> importVerifierOutput(const std::string& path,
                                             const VerifierImportOptions& options) {
    std::vector<EvalRecord> records;
    for (const VerifierDocument& d : readVerifierDocuments(path))
        records.push_back(recordFromVerification(d.result, path, d.place, options));
    return records;
}

bool looksLikeVerifierOutput(const std::string& path) {
    if (auto whole = trySniffJsonFile(path)) {
        const json& j = *whole;
        if (j.is_array())
            return !j.empty() && isVerifierObject(j[0]);
        return isVerifierObject(j);
    }
    std::ifstream in(path, std::ios::binary);
    std::string first;
    std::getline(in, first);
    const auto j = tryParseJson(first);
    return j && isVerifierObject(*j);
}

bool applyVerification(EvalRecord& record, const VerificationResult& result) {
    if (result.verdict == verdict::kNoGpu || result.verdict == verdict::kError)
        return false;
    record.verification = result.passed() ? Verification::Passed : Verification::Failed;
    record.verificationReasons = result.reasons;
    if (!result.passed())
        record.verificationReasons.insert(record.verificationReasons.begin(), result.verdict);
    if (result.roofline && result.roofline->floorUs > 0)
        record.rooflineFloorUs = result.roofline->floorUs;
    return true;
}

}  // namespace reach
