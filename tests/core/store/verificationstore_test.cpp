// Verification results kept in a project (core/store/verificationstore.h): the row, the
// verifier's JSON as printed, and the record's status, found by the project's one record key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "core/records/recordimport.h"
#include "core/records/recordimportverify.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"

namespace reach_test_verificationstore_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";

struct TempProject {
    std::string path;
    TempProject() {
        path = (std::filesystem::temp_directory_path() /
                ("reach_verificationstore_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".reach"))
                   .string();
        cleanup();
    }
    ~TempProject() { cleanup(); }
    void cleanup() {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            std::filesystem::remove(path + suffix);
    }
};

VerificationResult failedRun() {
    VerificationResult r;
    r.verdict = verdict::kFail;
    r.reasons = {"written_fraction: 0.003 < 1"};
    r.problemFile = "p.json";
    r.candidateFile = "c.cu";
    r.device.name = "NVIDIA H200";
    r.roofline = Roofline{};
    r.roofline->floorUs = 42;
    return r;
}

}  // namespace

TEST(VerificationStore, StoresTheRunAndTheRecordsStatusByItsId) {
    TempProject tp;
    ProjectStore store = ProjectStore::open(tp.path);
    const int64_t set =
        importRecordSet(store, "small", kSmall, "reach-jsonl", readReachJsonl(kSmall));
    std::vector<EvalRecord> records = loadRecordSet(store, set);
    ASSERT_GT(records.size(), 3u);
    EvalRecord record = records[2];
    ASSERT_GT(record.storeId, 0);
    const VerificationResult r = failedRun();
    ASSERT_TRUE(applyVerification(record, r));
    EXPECT_EQ(record.verification, Verification::Failed);
    EXPECT_EQ(record.verificationReasons.front(), "fail");  // the verdict first
    const int64_t id = storeVerification(store, record, r, "{\"verdict\":\"fail\"}\n", 12.5);
    EXPECT_GT(id, 0);

    const auto stored = loadVerifications(store);
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_EQ(stored[0].recordId, record.storeId);
    EXPECT_EQ(stored[0].verdict, "fail");
    EXPECT_EQ(stored[0].json, "{\"verdict\":\"fail\"}");  // as printed, without the line end
    EXPECT_EQ(stored[0].device, "NVIDIA H200");
    const auto reloaded = loadRecordSet(store, set);
    EXPECT_EQ(reloaded[2].verification, Verification::Failed);
    EXPECT_EQ(reloaded[2].rooflineFloorUs, 42.0);
    EXPECT_EQ(reloaded[1].verification, records[1].verification);  // only that record changed
}

TEST(VerificationStore, ARecordFromTheFileIsFoundByItsKeyFields) {
    TempProject tp;
    ProjectStore store = ProjectStore::open(tp.path);
    const auto fromFile = readReachJsonl(kSmall);
    const int64_t set = importRecordSet(store, "small", kSmall, "reach-jsonl", fromFile);
    EvalRecord record = fromFile[4];  // not loaded from the project: no storeId
    ASSERT_EQ(record.storeId, 0);
    const auto found = findStoredRecord(store, record);
    ASSERT_TRUE(found);
    EXPECT_EQ(*found, loadRecordSet(store, set)[4].storeId);
}

TEST(VerificationStore, NoGpuAndErrorRunsSayNothingAboutTheRecord) {
    EvalRecord record;
    record.verification = Verification::Passed;
    VerificationResult noGpu;
    noGpu.verdict = verdict::kNoGpu;
    EXPECT_FALSE(applyVerification(record, noGpu));
    VerificationResult error;
    error.verdict = verdict::kError;
    EXPECT_FALSE(applyVerification(record, error));
    EXPECT_EQ(record.verification, Verification::Passed);
}

TEST(VerificationStore, RecordKeysNameOneRecord) {
    EvalRecord r;
    r.storeId = 17;
    r.problemId = "23";
    r.problemName = "23_Softmax";
    r.model = "m";
    r.backend = "triton";
    r.sampleId = "0";
    EXPECT_TRUE(recordMatchesKey(r, "#17"));
    EXPECT_FALSE(recordMatchesKey(r, "#18"));
    EXPECT_FALSE(recordMatchesKey(r, "17"));  // a problem id, not the row
    EXPECT_TRUE(recordMatchesKey(r, "23"));
    EXPECT_TRUE(recordMatchesKey(r, "23_Softmax"));
    EXPECT_TRUE(recordMatchesKey(r, "23/m"));
    EXPECT_TRUE(recordMatchesKey(r, "23//triton/0"));
    EXPECT_FALSE(recordMatchesKey(r, "23/other"));
    EXPECT_FALSE(recordMatchesKey(r, "23/m/triton/0/extra"));
}

}  // namespace reach_test_verificationstore_test
