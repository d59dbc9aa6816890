// reach-verify results -> records: the verifier's own serializer (VerificationResult::toJson)
// writes the documents, so the importer is tested against the format reach-verify prints.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/records/recordimportverify.h"
#include "core/records/recordreader.h"
#include "core/records/suspicion.h"
#include "core/verify/verification.h"

namespace reach_test_recordimportverify_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

struct TempDir {
    std::filesystem::path root;
    TempDir() {
        root = std::filesystem::temp_directory_path() /
               ("reach_verifyimport_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(root);
    }
    ~TempDir() { std::filesystem::remove_all(root); }
    std::string write(const std::string& name, const std::string& text) const {
        const auto p = (root / name).string();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
};

// A result shaped as docs/verifier.md describes a passing softmax candidate on an H200.
VerificationResult passingSoftmax() {
    VerificationResult v;
    v.verdict = verdict::kPass;
    v.problemId = "softmax_4096x8192_bf16";
    v.op = "softmax";
    v.dtype = "bf16";
    v.problemFile = "resources/problems/softmax_4096x8192_bf16.json";
    v.candidateFile = "candidates/softmax_vectorized.cu";
    v.compile.status = "ok";
    v.timing = TimingStats::fromSamples({40.0, 41.0, 42.0, 43.0, 44.0});
    v.timing->l2Flushed = true;
    BaselineInfo b;
    b.kind = "reach_kernel";
    b.source = "resources/baselines/softmax.cu";
    b.timing = TimingStats::fromSamples({50.0, 52.0, 54.0});
    b.usedUs = 52.0;
    v.baseline = b;
    v.speedup = 52.0 / 42.0;
    Roofline r;
    r.floorUs = 30.0;
    v.roofline = r;
    v.device.available = true;
    v.device.name = "NVIDIA H200";
    v.startedAt = "2026-11-29T11:00:00Z";
    return v;
}

}  // namespace

TEST(VerifierImport, PassingResultBecomesAVerifiedRecord) {
    TempDir dir;
    const auto path = dir.write("softmax.json", passingSoftmax().toJson().dump(2));
    EXPECT_TRUE(looksLikeVerifierOutput(path));
    VerifierImportOptions o;
    o.model = "hand-written";
    const auto rs = importVerifierOutput(path, o);
    ASSERT_EQ(rs.size(), 1u);
    const EvalRecord& r = rs[0];
    EXPECT_EQ(r.problemId, "softmax_4096x8192_bf16");
    EXPECT_EQ(r.category, "softmax");
    EXPECT_EQ(r.dtype, "bf16");
    EXPECT_EQ(r.model, "hand-written");
    EXPECT_EQ(r.backend, "cuda");
    EXPECT_EQ(r.sampleId, "softmax_vectorized");
    EXPECT_TRUE(r.compiled);
    EXPECT_TRUE(r.correct);
    EXPECT_EQ(r.verification, Verification::Passed);
    EXPECT_DOUBLE_EQ(*r.candidateTimeUs, 42.0);
    EXPECT_DOUBLE_EQ(*r.baselineEagerUs, 52.0);
    EXPECT_NEAR(*r.speedup, 52.0 / 42.0, 1e-12);
    EXPECT_DOUBLE_EQ(*r.rooflineFloorUs, 30.0);
    EXPECT_EQ(r.hardware, "NVIDIA H200");
    EXPECT_EQ(r.date, "2026-11-29T11:00:00Z");
    EXPECT_NE(r.harness.find("reach-verify"), std::string::npos);
    EXPECT_NE(r.harness.find("reach_kernel"), std::string::npos);
    EXPECT_TRUE(suspicionsFor(r, {}).empty());
}

TEST(VerifierImport, FailuresFoldersAndNothingMeasured) {
    TempDir dir;
    VerificationResult fail = passingSoftmax();
    fail.verdict = verdict::kFail;
    fail.reasons = {"invariant:row_sum 384 (expected 1)"};
    fail.candidateFile = "candidates/softmax_chunked_1024.cu";
    VerificationResult compileError = passingSoftmax();
    compileError.verdict = verdict::kCompileError;
    compileError.compile.status = "error";
    compileError.timing.reset();
    compileError.speedup = 0;
    compileError.candidateFile = "candidates/softmax_broken.cu";
    dir.write("a_pass.json", passingSoftmax().toJson().dump());
    dir.write("b_fail.json", fail.toJson().dump());
    dir.write("c_compile.json", compileError.toJson().dump());
    RecordReadOptions o;
    const auto rs = readRecords(dir.root.string(), o);  // a folder of outputs, sorted by name
    ASSERT_EQ(rs.size(), 3u);
    EXPECT_TRUE(rs[0].correct);
    EXPECT_FALSE(rs[1].correct);
    EXPECT_EQ(rs[1].verification, Verification::Failed);
    EXPECT_EQ(rs[1].verificationReasons.at(0), "invariant:row_sum 384 (expected 1)");
    EXPECT_FALSE(rs[2].compiled);
    EXPECT_FALSE(rs[2].speedup);

    // One JSON array of results reads the same.
    const auto array = dir.write(
        "all.jsonarr", nlohmann::json::array({passingSoftmax().toJson(), fail.toJson()}).dump());
    EXPECT_EQ(importVerifierOutput(array).size(), 2u);

    VerificationResult noGpu;
    noGpu.verdict = verdict::kNoGpu;
    noGpu.problemId = "softmax_4096x8192_bf16";
    noGpu.reasons = {"no CUDA device"};
    const auto bad = dir.write("nogpu.json", noGpu.toJson().dump());
    try {
        importVerifierOutput(bad);
        ADD_FAILURE() << "a result that measured nothing is not an evaluation";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), bad);
        EXPECT_NE(std::string(e.what()).find("\"verdict\""), std::string::npos) << e.what();
    }
}

}  // namespace reach_test_recordimportverify_test
