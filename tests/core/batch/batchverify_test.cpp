// A batch's plan, its resume rule and how its results are stored (core/batch/batchverify.h):
// records and job lists become jobs under the Re-verify trust rule, a stored run on the same
// device makes a job done, and every stored row carries the key it is resumed by.
#include <gtest/gtest.h>

#include <fstream>

#include "batchtestsupport.h"
#include "core/batch/batchverify.h"
#include "core/records/recordimport.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"

namespace reach_test_batchverify_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::BatchScratch;
namespace fs = std::filesystem;

namespace {

VerificationResult passOn(const BatchJob& job, const std::string& uuid, double medianUs) {
    VerificationResult r;
    r.verdict = verdict::kPass;
    r.problemFile = job.request.problemFile;
    r.candidateFile = job.request.candidateFile;
    r.device.available = true;
    r.device.name = "Fake GPU";
    r.device.uuid = uuid;
    TimingStats t;
    t.medianUs = medianUs;
    r.timing = t;
    return r;
}

}  // namespace

TEST(BatchPlan, AJobListBecomesJobsWithHashesAndUntrustedPathsAreRefused) {
    BatchScratch s("plan");
    fs::create_directories(s.dir() + "/k");
    s.candidate("k/a.cu", "a");
    s.candidate("k/b.py", "b");
    s.candidate("p.py", "problem");
    const fs::path outside =
        fs::temp_directory_path() / ("reach_outside_" + std::to_string(getpid()) + ".cu");
    std::ofstream(outside) << "x\n";
    const std::string list = s.dir() + "/jobs.txt";
    std::ofstream(list) << "problem.json k/a.cu\np.py k/b.py\nproblem.json " << outside.string()
                        << "\nproblem.json k/missing.cu\n";
    BatchJobDefaults d;
    d.extraArgs = {"--reps", "7"};
    const BatchPlan plan = planBatch(list, {}, {}, d);
    fs::remove(outside);
    EXPECT_EQ(plan.kind, "pairs");
    ASSERT_EQ(plan.jobs.size(), 2u);
    ASSERT_EQ(plan.records.size(), 2u);
    ASSERT_EQ(plan.refused.size(), 2u);
    EXPECT_NE(plan.refused[0].find("outside the list's folder"), std::string::npos)
        << plan.refused[0];
    EXPECT_NE(plan.refused[1].find("not found"), std::string::npos) << plan.refused[1];
    EXPECT_EQ(plan.jobs[0].candidateHash.size(), 64u);
    EXPECT_EQ(plan.jobs[0].problemHash.size(), 64u);
    EXPECT_FALSE(plan.jobs[0].kernelBenchFormat);
    EXPECT_EQ(plan.jobs[0].request.timeoutSeconds, 60);
    EXPECT_EQ(plan.jobs[0].request.extraArgs, (std::vector<std::string>{"--reps", "7"}));
    EXPECT_TRUE(plan.jobs[1].kernelBenchFormat);
    EXPECT_EQ(plan.jobs[1].request.timeoutSeconds, 1800);
    EXPECT_EQ(plan.records[0].problemId, "problem");
    EXPECT_EQ(plan.records[0].sampleId, "a.cu");
    EXPECT_EQ(plan.records[1].sourceLine, 2);
}

TEST(BatchPlan, SuspiciousAndUnverifiedSelectRecords) {
    const std::string small = std::string(REACH_TEST_DATA) + "/records/small.jsonl";
    BatchSelection all;
    const BatchPlan everything = planBatch(small, all, {}, {});
    EXPECT_EQ(everything.kind, "records");
    BatchSelection unverified;
    unverified.unverified = true;
    const BatchPlan some = planBatch(small, unverified, {}, {});
    // The set has verified records: selecting leaves some out (they count as left out, never
    // as refused).
    EXPECT_GT(some.leftOut, 0);
    EXPECT_EQ(some.leftOut + some.refused.size() + some.jobs.size(),
              everything.refused.size() + everything.jobs.size());
}

TEST(BatchResume, AStoredRunOnTheSameDeviceMakesAJobDone) {
    BatchScratch s("resume");
    BatchPlan plan;
    plan.jobs = s.jobs(3, "x");
    plan.records.resize(3);
    ProjectStore store = ProjectStore::open(s.dir() + "/p.reach");
    BatchSlot gpu0{"0", "GPU-0", "Fake", "sm_90"};
    EXPECT_TRUE(storeBatchResult(store, plan.records[1], plan.jobs[1],
                                 passOn(plan.jobs[1], "GPU-0", 10), "{}", 5, gpu0, "b1"));
    // A run that judged nothing is not stored (and so is run again).
    VerificationResult noGpu;
    noGpu.verdict = verdict::kNoGpu;
    EXPECT_FALSE(
        storeBatchResult(store, plan.records[2], plan.jobs[2], noGpu, "{}", 5, gpu0, "b1"));

    BatchPlan other = plan;
    EXPECT_EQ(dropDoneJobs(other, store, {"GPU-9"}), 0) << "another GPU is another device";
    BatchPlan same = plan;
    EXPECT_EQ(dropDoneJobs(same, store, {"GPU-9", "GPU-0"}), 1);
    ASSERT_EQ(same.jobs.size(), 2u);
    EXPECT_EQ(same.jobs[0].index, 0);
    EXPECT_EQ(same.jobs[1].index, 2);  // indices stay those of the whole batch
    BatchPlan any = plan;
    EXPECT_EQ(dropDoneJobs(any, store, {}), 1);

    // A changed candidate is a new job.
    BatchPlan edited = plan;
    std::ofstream(edited.jobs[1].request.candidateFile) << "x edited\n";
    hashJobFiles(edited.jobs[1]);
    EXPECT_EQ(dropDoneJobs(edited, store, {"GPU-0"}), 0);

    const auto rows = loadVerifications(store);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].candidateHash, plan.jobs[1].candidateHash);
    EXPECT_EQ(rows[0].problemHash, plan.jobs[1].problemHash);
    EXPECT_EQ(rows[0].deviceUuid, "GPU-0");
    EXPECT_EQ(rows[0].gpuIndex, "0");
    EXPECT_EQ(rows[0].batch, "b1");
}

TEST(BatchResume, PinnedJobsAreDoneOnlyOnTheirGpu) {
    BatchScratch s("pinresume");
    BatchPlan plan;
    plan.jobs = s.jobs(1, "x");
    plan.records.resize(1);
    const std::vector<BatchSlot> slots = {{"0", "GPU-0", "", ""}, {"1", "GPU-1", "", ""}};
    pinToEveryGpu(plan, slots);
    ASSERT_EQ(plan.jobs.size(), 2u);
    EXPECT_EQ(*plan.jobs[1].pinnedGpu, "1");
    ProjectStore store = ProjectStore::open(s.dir() + "/p.reach");
    storeBatchResult(store, plan.records[0], plan.jobs[0], passOn(plan.jobs[0], "GPU-0", 10), "{}",
                     1, slots[0], "b");
    BatchPlan resumed = plan;
    EXPECT_EQ(dropDoneJobs(resumed, store, {"GPU-0", "GPU-1"}, {{"0", "GPU-0"}, {"1", "GPU-1"}}),
              1);
    ASSERT_EQ(resumed.jobs.size(), 1u);
    EXPECT_EQ(*resumed.jobs[0].pinnedGpu, "1");
}

TEST(BatchSummary, TheSameCandidateTimedOnTwoGpusShowsItsSpread) {
    BatchScratch s("spread");
    BatchPlan plan;
    plan.jobs = s.jobs(2, "x");
    plan.records.resize(2);
    ProjectStore store = ProjectStore::open(s.dir() + "/p.reach");
    const BatchSlot g0{"0", "GPU-0", "", ""}, g1{"1", "GPU-1", "", ""};
    storeBatchResult(store, plan.records[0], plan.jobs[0], passOn(plan.jobs[0], "GPU-0", 10), "{}",
                     1, g0, "b");
    storeBatchResult(store, plan.records[0], plan.jobs[0], passOn(plan.jobs[0], "GPU-1", 10.4),
                     "{}", 1, g1, "b");
    storeBatchResult(store, plan.records[1], plan.jobs[1], passOn(plan.jobs[1], "GPU-0", 20), "{}",
                     1, g0, "b");
    storeBatchResult(store, plan.records[1], plan.jobs[1], passOn(plan.jobs[1], "GPU-1", 20.2),
                     "{}", 1, g1, "b");
    const auto spreads = batchTimingSpreads(store, plan);
    ASSERT_EQ(spreads.size(), 2u);
    EXPECT_EQ(spreads[0].label, "c0");
    EXPECT_TRUE(spreads[0].exceeds);   // 4 %
    EXPECT_FALSE(spreads[1].exceeds);  // 1 %
}

}  // namespace reach_test_batchverify_test
