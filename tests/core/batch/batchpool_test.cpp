// The batch pool (core/batch/batchpool.h) with the fake verifier: every job exactly once at 1,
// 2 and 8 GPU workers, each worker pinned to its GPU, compile-ahead once per distinct candidate,
// timing windows that never overlap on one GPU, stop and errors.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <map>
#include <set>
#include <thread>

#include "batchtestsupport.h"
#include "core/base/inputerror.h"
#include "core/batch/batchpool.h"

namespace reach_test_batchpool_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::BatchScratch;

namespace {

struct FakeEventTimes {
    int64_t start = 0, end = 0;
};

BatchPoolOptions options(const BatchScratch& s, int gpus, int perGpu = 1) {
    BatchPoolOptions o;
    o.verifier = REACH_FAKE_BATCH_VERIFIER;
    for (int k = 0; k < perGpu; ++k)
        for (int g = 0; g < gpus; ++g)
            o.slots.push_back(
                {std::to_string(g), "GPU-fake-" + std::to_string(g), "Fake", "sm_90"});
    o.env = s.env();
    o.lockDir = s.dir();
    return o;
}

}  // namespace

class BatchPoolWorkers : public ::testing::TestWithParam<int> {};

TEST_P(BatchPoolWorkers, EveryJobExactlyOnceOnItsWorkersGpu) {
    const int workers = GetParam();
    BatchScratch s("workers" + std::to_string(workers));
    const std::vector<BatchJob> jobs = s.jobs(24);
    std::vector<int> seen(jobs.size(), 0);
    std::set<std::string> gpusUsed;
    int lastDone = 0;
    runBatch(
        jobs, options(s, workers),
        [&](const BatchOutcome& o) {
            ++seen[size_t(o.job->index)];
            EXPECT_EQ(o.result.verdict, "pass") << o.result.log;
            // The job ran on the worker's GPU: the verifier saw that CUDA_VISIBLE_DEVICES.
            EXPECT_EQ(o.result.device.visibleDevices, std::to_string(o.slot));
            gpusUsed.insert(o.result.device.visibleDevices);
        },
        [&](const BatchProgress& p) {
            EXPECT_EQ(p.done, lastDone + 1);
            lastDone = p.done;
            EXPECT_EQ(p.total, 24);
        });
    for (size_t j = 0; j < jobs.size(); ++j)
        EXPECT_EQ(seen[j], 1) << "job " << j;
    EXPECT_EQ(int(gpusUsed.size()), workers);
    // The verifier itself ran each candidate once (no retry, no duplicate dispatch).
    const auto runs = s.countBy("run");
    EXPECT_EQ(runs.size(), jobs.size());
    for (const auto& [c, n] : runs)
        EXPECT_EQ(n, 1) << c;
}

INSTANTIATE_TEST_SUITE_P(Pool, BatchPoolWorkers, ::testing::Values(1, 2, 8));

// Only the jobs' sleep can overlap on a 2-core machine (each verifier's start is CPU work, and
// under ASan beside other tests it costs 0.1-0.3 s): the sleep is long enough to dominate it,
// so the ratio holds on a busy machine too (with 150 ms it came to 0.30 against 1/3).
TEST(BatchPool, MoreWorkersFinishSooner) {
    BatchScratch s("speed");
    const std::vector<BatchJob> jobs = s.jobs(16, "sleep_ms=400");
    auto wall = [&](int gpus) {
        const auto t0 = std::chrono::steady_clock::now();
        runBatch(jobs, options(s, gpus), [](const BatchOutcome&) {});
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    const double one = wall(1), eight = wall(8);
    EXPECT_GT(one, 16 * 0.4);
    EXPECT_LT(eight, one / 3) << "1 worker " << one << " s, 8 workers " << eight << " s";
}

TEST(BatchPool, CompilesEachDistinctCandidateOnceAhead) {
    BatchScratch s("compile");
    std::vector<BatchJob> jobs = s.jobs(6, "sleep_ms=30");
    // Jobs 3..5 run the same candidate bytes as 0..2 (another record of the same kernel).
    for (int i = 3; i < 6; ++i) {
        jobs[size_t(i)].request.candidateFile = jobs[size_t(i - 3)].request.candidateFile;
        jobs[size_t(i)].candidateHash = jobs[size_t(i - 3)].candidateHash;
    }
    BatchPoolOptions o = options(s, 2);
    o.compileWorkers = 2;
    o.compileArch = "sm_90";
    int results = 0;
    runBatch(jobs, o, [&](const BatchOutcome&) { ++results; });
    EXPECT_EQ(results, 6);
    const auto compiles = s.countBy("compile");
    // Every candidate is compiled once: ahead, or by the GPU job that found it not started.
    int aheadAndSelf = 0;
    for (const auto& [c, n] : compiles) {
        EXPECT_EQ(n, 1) << c;
        aheadAndSelf += n;
    }
    EXPECT_LE(aheadAndSelf, 3);
    EXPECT_EQ(s.countBy("run").size(), 3u);
}

TEST(BatchPool, TwoJobsOnOneGpuNeverTimeAtOnce) {
    BatchScratch s("lock");
    const std::vector<BatchJob> jobs = s.jobs(8, "sleep_ms=5");
    BatchPoolOptions o = options(s, 2, /*perGpu=*/3);
    o.env.push_back("FAKE_TIMING_MS=40");
    runBatch(jobs, o, [](const BatchOutcome&) {});
    const auto windows = s.events("timing");
    ASSERT_EQ(windows.size(), 8u);
    bool overlapAcrossGpus = false;
    for (size_t a = 0; a < windows.size(); ++a) {
        for (size_t b = a + 1; b < windows.size(); ++b) {
            const bool overlap = windows[a].t0 < windows[b].t1 && windows[b].t0 < windows[a].t1;
            if (windows[a].gpu == windows[b].gpu)
                EXPECT_FALSE(overlap) << windows[a].candidate << " and " << windows[b].candidate
                                      << " timed on GPU " << windows[a].gpu << " at once";
            else
                overlapAcrossGpus |= overlap;
        }
    }
    // The lock is per GPU: two GPUs do time at once (the batch is not serialized).
    EXPECT_TRUE(overlapAcrossGpus);
}

// Issue 38: a KernelBench-format job's first verify of a problem measures its baselines
// (torch.compile: 36-114 s on an H100) and caches them. The problem's other jobs wait for that
// one rather than measure them again each, and the workers take other problems' jobs meanwhile.
TEST(BatchPool, AProblemsFirstJobMeasuresItsBaselinesBeforeTheOthersStart) {
    BatchScratch s("baselines");
    std::vector<BatchJob> jobs = s.jobs(6, "sleep_ms=300");
    for (BatchJob& j : jobs) {
        j.kernelBenchFormat = true;
        j.problemHash = j.index < 3 ? "problem-a" : "problem-b";
    }
    runBatch(jobs, options(s, 3),
             [](const BatchOutcome& o) { EXPECT_EQ(o.result.verdict, "pass") << o.result.log; });
    std::map<std::string, FakeEventTimes> byCandidate;
    for (const auto& e : s.events("start"))
        byCandidate[e.candidate].start = e.t0;
    for (const auto& e : s.events("run"))
        byCandidate[e.candidate].end = e.t1;
    ASSERT_EQ(byCandidate.size(), 6u);
    auto t = [&](int i) { return byCandidate.at("c" + std::to_string(i) + ".cu"); };
    for (int first : {0, 3})
        for (int other : {first + 1, first + 2})
            EXPECT_GE(t(other).start, t(first).end)
                << "c" << other << " started before c" << first << " had its baselines";
    // The second problem's first job did not wait for the first problem's.
    EXPECT_LT(t(3).start, t(0).end);
}

TEST(BatchPool, PinnedJobsRunOnTheirGpu) {
    BatchScratch s("pinned");
    std::vector<BatchJob> jobs = s.jobs(6, "sleep_ms=5");
    for (BatchJob& j : jobs)
        j.pinnedGpu = std::to_string(j.index % 3);
    runBatch(jobs, options(s, 3), [&](const BatchOutcome& o) {
        EXPECT_EQ(o.result.device.visibleDevices, *o.job->pinnedGpu);
    });
}

TEST(BatchPool, AStopLeavesTheRestUndoneAndKillsRunningJobs) {
    BatchScratch s("stop");
    // The first three jobs are quick; the rest would take 20 s each. So the batch ends in
    // seconds only if the stop leaves the queue undone and kills the two jobs it finds running:
    // a bound far from both sides, which a loaded CI machine (ASan, ctest -j) cannot cross.
    std::vector<BatchJob> jobs = s.jobs(12, "sleep_ms=5");
    for (size_t i = 3; i < jobs.size(); ++i) {
        jobs[i].request.candidateFile = s.candidate("slow" + std::to_string(i) + ".cu",
                                                    "sleep_ms=20000 id=" + std::to_string(i));
        hashJobFiles(jobs[i]);
    }
    std::stop_source stop;
    int results = 0;
    const auto t0 = std::chrono::steady_clock::now();
    runBatch(
        jobs, options(s, 2),
        [&](const BatchOutcome&) {
            if (++results == 3)
                stop.request_stop();
        },
        {}, stop.get_token());
    EXPECT_GE(results, 3);
    EXPECT_LT(results, 12);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

TEST(BatchPool, AnErrorWhileStoringStopsTheBatchAndIsRethrown) {
    BatchScratch s("error");
    const std::vector<BatchJob> jobs = s.jobs(10, "sleep_ms=50");
    int results = 0;
    EXPECT_THROW(runBatch(jobs, options(s, 2),
                          [&](const BatchOutcome&) {
                              if (++results == 2)
                                  throw std::runtime_error("disk full");
                          }),
                 std::runtime_error);
    EXPECT_EQ(results, 2);
}

TEST(BatchPool, CrashesAndTimeoutsAreVerdicts) {
    BatchScratch s("verdicts");
    std::vector<BatchJob> jobs = s.jobs(3, "sleep_ms=1");
    jobs[0].request.candidateFile = s.candidate("crash.cu", "verdict=crash");
    jobs[1].request.candidateFile = s.candidate("hang.cu", "verdict=hang");
    jobs[1].request.timeoutSeconds = 0.5;
    jobs[2].request.candidateFile = s.candidate("fail.cu", "verdict=fail");
    std::map<std::string, std::string> verdicts;
    BatchProgress last;
    runBatch(
        jobs, options(s, 3),
        [&](const BatchOutcome& o) {
            verdicts[std::filesystem::path(o.job->request.candidateFile).stem()] = o.result.verdict;
        },
        [&](const BatchProgress& p) { last = p; });
    EXPECT_EQ(verdicts["crash"], "crashed");
    EXPECT_EQ(verdicts["hang"], "timeout");
    EXPECT_EQ(verdicts["fail"], "fail");
    EXPECT_EQ(last.failed, 3);
    EXPECT_NE(last.line().find("3/3 done (3 failed)"), std::string::npos) << last.line();
}

TEST(BatchPool, SlotsComeFromTheVerifiersDeviceInfo) {
    const std::vector<BatchSlot> slots = batchSlots(REACH_FAKE_BATCH_VERIFIER, "0,2", 2);
    ASSERT_EQ(slots.size(), 4u);
    EXPECT_EQ(slots[0].gpu, "0");
    EXPECT_EQ(slots[1].gpu, "2");  // every GPU once before any twice
    EXPECT_EQ(slots[2].gpu, "0");
    EXPECT_EQ(slots[1].uuid, "GPU-fa4e0000-0000-0000-0000-000000000002");
    EXPECT_EQ(slots[1].arch, "sm_90");
    EXPECT_THROW(batchSlots(REACH_FAKE_BATCH_VERIFIER, "0,x", 1), InputError);
}

TEST(BatchProgressLine, SaysDoneFailedLeftRateAndTimeLeft) {
    BatchProgress p;
    p.total = 40;
    p.done = 10;
    p.failed = 2;
    p.running = 2;
    p.skipped = 5;
    p.elapsedSeconds = 60;
    p.donePerSlot = {6, 4};
    const std::string line = p.line({{"0", "", "", ""}, {"1", "", "", ""}});
    EXPECT_NE(line.find("10/40 done (2 failed)"), std::string::npos) << line;
    EXPECT_NE(line.find("5 skipped"), std::string::npos) << line;
    EXPECT_NE(line.find("30 left"), std::string::npos) << line;
    EXPECT_NE(line.find("600 jobs/h"), std::string::npos) << line;
    EXPECT_NE(line.find("~3.0 min left"), std::string::npos) << line;
    EXPECT_NE(line.find("per GPU 0:6 1:4"), std::string::npos) << line;
}

// scancel, a time limit or preemption SIGTERM every process of a Slurm task, the verifier too:
// that is not the candidate's crash, and must not be stored as one (a resume runs it again).
TEST(BatchPool, AVerifierTerminatedFromOutsideIsNotAVerdict) {
    BatchScratch s("sigterm");
    std::vector<BatchJob> jobs = s.jobs(1, "verdict=hang");
    jobs[0].request.timeoutSeconds = 20;
    std::thread killer([&] {
        for (int i = 0; i < 200; ++i) {
            std::ifstream in(s.log());
            std::string line;
            if (std::getline(in, line) && line.find(" pid=") != std::string::npos) {
                kill(std::stoi(line.substr(line.find(" pid=") + 5)), SIGTERM);
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    int results = 0;
    runBatch(jobs, options(s, 1), [&](const BatchOutcome&) { ++results; });
    killer.join();
    EXPECT_EQ(results, 0);
    EXPECT_EQ(s.countBy("start").size(), 1u);
}

}  // namespace reach_test_batchpool_test
