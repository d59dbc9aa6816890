// Job lists (core/batch/batchjobs.h), the cross-GPU timing spread, the GPU timing lock and the
// child-process rules a pool of workers relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include "batchtestsupport.h"
#include "core/base/inputerror.h"
#include "core/batch/batchjobs.h"
#include "core/verify/childprocess.h"
#include "core/verify/gputiminglock.h"
#include "core/verify/verification.h"

namespace reach_test_batchjobs_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::BatchScratch;

namespace {

std::string write(const BatchScratch& s, const std::string& name, const std::string& text) {
    const std::string p = s.dir() + "/" + name;
    std::ofstream(p) << text;
    return p;
}

}  // namespace

TEST(JobPairs, TextJsonAndJsonLines) {
    BatchScratch s("pairs");
    const std::string text = write(
        s, "jobs.txt", "# problem candidate\n\np/softmax.json c/a.cu\n p/x.py\tc/my kernel.py\n");
    ASSERT_TRUE(looksLikeJobPairs(text));
    auto pairs = readJobPairs(text);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].problem, "p/softmax.json");
    EXPECT_EQ(pairs[0].candidate, "c/a.cu");
    EXPECT_EQ(pairs[0].line, 3);
    EXPECT_EQ(pairs[1].candidate, "c/my kernel.py");

    const std::string json = write(
        s, "jobs.json",
        R"([{"problem": "a.json", "candidate": "a.cu", "args": ["--reps", "5"], "timeout_s": 9},
            {"problem": "b.json", "candidate": "b.cu"}])");
    ASSERT_TRUE(looksLikeJobPairs(json));
    pairs = readJobPairs(json);
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[0].args, (std::vector<std::string>{"--reps", "5"}));
    EXPECT_EQ(pairs[0].timeoutSeconds, 9);
    EXPECT_EQ(pairs[1].line, 2);

    const std::string jsonl = write(s, "jobs.jsonl",
                                    "{\"problem\": \"a.json\", \"candidate\": \"a.cu\"}\n"
                                    "{\"problem\": \"b.py\", \"candidate\": \"b.py\"}\n");
    ASSERT_TRUE(looksLikeJobPairs(jsonl));
    EXPECT_EQ(readJobPairs(jsonl).size(), 2u);
}

TEST(JobPairs, RecordsAndVerifierOutputAreNotJobLists) {
    BatchScratch s("notpairs");
    EXPECT_FALSE(looksLikeJobPairs(std::string(REACH_TEST_DATA) + "/records/small.jsonl"));
    EXPECT_FALSE(looksLikeJobPairs(write(s, "result.json",
                                         R"({"problem": {"op": "softmax"}, "candidate_file": "c.cu",
                                             "verdict": "pass"})")));
    EXPECT_FALSE(looksLikeJobPairs(write(s, "t.csv", "problem,model,speedup\n1,x,2\n")));
    EXPECT_FALSE(looksLikeJobPairs(s.dir() + "/missing.txt"));
}

TEST(JobPairs, ErrorsNameTheFileAndTheLine) {
    BatchScratch s("badpairs");
    const std::string three = write(s, "three.txt", "a.json b.cu\na.json b.cu extra\n");
    try {
        readJobPairs(three);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(three + ": line 2: ", 0), 0u) << e.what();
    }
    const std::string noCandidate = write(s, "nc.json", R"([{"problem": "a.json"}])");
    try {
        readJobPairs(noCandidate);
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("entry 1: key \"candidate\""), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(readJobPairs(write(s, "empty.txt", "# nothing\n")), InputError);
}

TEST(JobPairs, ArgsMaySetOnlyHowAJobIsMeasured) {
    // A job list may come from anyone: its args cannot loosen the oracle, choose the baseline,
    // run another interpreter or name a file.
    BatchScratch s("args");
    const std::string ok =
        write(s, "ok.json",
              R"([{"problem": "a.py", "candidate": "b.py", "args": ["--precision",
                                    "bf16", "--seed", "7", "--reps", "20", "--warmup", "3",
                                    "--seed-count", "2", "--worker-timeout", "600"]}])");
    ASSERT_EQ(readJobPairs(ok).at(0).args.size(), 12u);
    const std::vector<std::pair<std::string, std::string>> refused = {
        {R"(["--thresholds", "/etc/loose.json"])", "a job list cannot set '--thresholds'"},
        {R"(["--python", "../../evil/python3"])", "a job list cannot set '--python'"},
        {R"(["--kb-tolerance", "1e9"])", "a job list cannot set '--kb-tolerance'"},
        {R"(["--baseline-us", "1e9"])", "a job list cannot set '--baseline-us'"},
        {R"(["--no-compile-baseline"])", "a job list cannot set '--no-compile-baseline'"},
        {R"(["--reps"])", "--reps followed by 1 to 100000"},
        {R"(["--reps", "0"])", "--reps followed by 1 to 100000"},
        {R"(["--precision", "fp8"])", "--precision followed by fp32, bf16 or fp16"},
        {R"(["--seed", "-1"])", "--seed followed by an integer below 2^64"},
    };
    for (const auto& [args, why] : refused) {
        const std::string f = write(
            s, "bad.json", R"([{"problem": "a.py", "candidate": "b.py", "args": )" + args + "}]");
        try {
            readJobPairs(f);
            FAIL() << args;
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(f + ": entry 1: key \"args\": ", 0), 0u) << what;
            EXPECT_NE(what.find(why), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
    }
}

TEST(TimingSpread, WarnsAboveThreePercentAcrossGpus) {
    std::vector<TimingSample> samples = {
        {"c1", "p", "GPU-a", 10.0}, {"c1", "p", "GPU-b", 10.5},  // 5 %: warn
        {"c2", "p", "GPU-a", 20.0}, {"c2", "p", "GPU-b", 20.4},  // 2 %: fine
        {"c3", "p", "GPU-a", 30.0},                              // one GPU: no spread
        {"c2", "p", "GPU-b", 20.2},  // a later run on the same GPU replaces the earlier
    };
    const auto spreads = timingSpreads(samples, {{"c1 p", "softmax candidate"}});
    ASSERT_EQ(spreads.size(), 2u);
    EXPECT_EQ(spreads[0].label, "softmax candidate");
    EXPECT_NEAR(spreads[0].spread, 0.05, 1e-9);
    EXPECT_TRUE(spreads[0].exceeds);
    EXPECT_NEAR(spreads[1].spread, 0.01, 1e-9);
    EXPECT_FALSE(spreads[1].exceeds);
}

TEST(GpuUuid, FormattedAsNvidiaWritesIt) {
    const unsigned char bytes[16] = {0x8f, 0x3c, 0x01, 0x02, 0xab, 0xcd, 0xef, 0x01,
                                     0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00};
    EXPECT_EQ(formatGpuUuid(bytes), "GPU-8f3c0102-abcd-ef01-2345-6789abcdef00");
    EXPECT_EQ(normalizeGpuUuid("8f3c0102-abcd-ef01-2345-6789abcdef00"),
              "GPU-8f3c0102-abcd-ef01-2345-6789abcdef00");
    EXPECT_EQ(normalizeGpuUuid("GPU-1"), "GPU-1");
    EXPECT_EQ(normalizeGpuUuid(""), "");
}

TEST(VerificationJson, CarriesTheGpuUuidAndIndex) {
    VerificationResult r;
    r.verdict = "pass";
    r.device.available = true;
    r.device.uuid = "GPU-1234";
    r.device.visibleDevices = "3";
    const VerificationResult back = VerificationResult::fromJson(r.toJson(), "x.json");
    EXPECT_EQ(back.device.uuid, "GPU-1234");
    EXPECT_EQ(back.device.visibleDevices, "3");
}

TEST(GpuTimingLock, ExcludesASecondHolderUntilReleased) {
    BatchScratch s("gpulock");
    const std::string path = GpuTimingLock::pathFor(s.dir(), "GPU-ab/c");
    EXPECT_EQ(path, s.dir() + "/reach-gpu-GPU-ab_c.lock");
    auto first = std::make_unique<GpuTimingLock>(path);
    ASSERT_TRUE(first->held());
    // flock is per open file: a second holder (another verifier process) waits.
    std::atomic<bool> got{false};
    std::thread other([&] {
        GpuTimingLock second(path);
        got = second.held();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_FALSE(got.load());
    first.reset();
    other.join();
    EXPECT_TRUE(got.load());
    EXPECT_FALSE(GpuTimingLock("").held());
}

TEST(ChildProcess, EnvironmentEntriesReplaceAddAndRemove) {
    setenv("REACH_TEST_KEEP", "kept", 1);
    setenv("REACH_TEST_DROP", "dropped", 1);
    const ChildResult r =
        runChild({"/bin/sh", "-c",
                  "echo \"$REACH_TEST_KEEP|$CUDA_VISIBLE_DEVICES|${REACH_TEST_DROP-unset}\""},
                 10, {"CUDA_VISIBLE_DEVICES=3", "REACH_TEST_DROP"});
    EXPECT_EQ(r.out, "kept|3|unset\n");
    const auto env = childEnvironment({"REACH_TEST_KEEP=new"});
    EXPECT_EQ(std::count(env.begin(), env.end(), "REACH_TEST_KEEP=new"), 1);
    EXPECT_EQ(std::count(env.begin(), env.end(), "REACH_TEST_KEEP=kept"), 0);
}

TEST(ChildProcess, AStopKillsTheChildAtOnce) {
    std::stop_source stop;
    std::thread later([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        stop.request_stop();
    });
    const ChildResult r = runChild({"/bin/sh", "-c", "sleep 30"}, 60, {}, stop.get_token());
    later.join();
    EXPECT_TRUE(r.cancelled);
    EXPECT_FALSE(r.timedOut);
    EXPECT_LT(r.seconds, 5);
}

// Workers start children at the same moment: a child forked by one worker must not hold another
// worker's pipe open, or a quick job waits for a slow sibling to finish before its EOF arrives.
TEST(ChildProcess, ConcurrentChildrenDoNotHoldEachOthersPipes) {
    std::atomic<bool> done{false};
    std::vector<std::thread> slow;
    for (int t = 0; t < 3; ++t)
        slow.emplace_back([&] {
            while (!done)
                runChild({"/bin/sh", "-c", "sleep 1"}, 10);
        });
    double worst = 0;
    for (int i = 0; i < 40; ++i)
        worst = std::max(worst, runChild({"/bin/true"}, 10).seconds);
    done = true;
    for (auto& t : slow)
        t.join();
    EXPECT_LT(worst, 0.5);
}

}  // namespace reach_test_batchjobs_test
