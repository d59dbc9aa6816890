// reach-cli verify --batch (docs/batch.md) run as a process with the fake verifier
// (tests/core/batch/fakebatchverifier.cpp): every job exactly once at 1, 2 and 8 GPU workers,
// progress on stderr, a batch killed with SIGKILL and resumed without any job run twice, the
// cross-GPU spread warning, records as jobs, and the one-line errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "clirunner.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"

namespace reach_test_cliverifybatch_test {  // unity builds: this file's names stay its own

using namespace reach;
using namespace reach::test;
namespace fs = std::filesystem;

namespace {

// A job list of n candidates for the fake verifier, in dir.
std::string jobList(const TempDir& dir, int n, const std::string& settings) {
    writeFile(dir.path("problem.json"), "{\"op\": \"softmax\"}\n");
    std::string list;
    for (int i = 0; i < n; ++i) {
        const std::string c = "c" + std::to_string(i) + ".cu";
        writeFile(dir.path(c), settings + " id=" + std::to_string(i) + "\n");
        list += "problem.json " + c + "\n";
    }
    writeFile(dir.path("jobs.txt"), list);
    return dir.path("jobs.txt");
}

void useFake(const TempDir& dir) {
    setenv("REACH_VERIFY", REACH_FAKE_BATCH_VERIFIER, 1);
    setenv("FAKE_VERIFY_LOG", dir.path("fake.log").c_str(), 1);
    setenv("FAKE_VERIFY_STATE", dir.root().c_str(), 1);
    setenv("FAKE_GPU_COUNT", "8", 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
}

// Candidate file name -> how many times the fake logged EVENT for it.
std::map<std::string, int> events(const TempDir& dir, const std::string& event) {
    std::map<std::string, int> n;
    std::istringstream in(readFile(dir.path("fake.log")));
    for (std::string e, c, rest; in >> e >> c && std::getline(in, rest);)
        if (e == event)
            ++n[c];
    return n;
}

std::string gpuList(int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s += (i ? "," : "") + std::to_string(i);
    return s;
}

}  // namespace

class CliVerifyBatch : public ::testing::TestWithParam<int> {};

TEST_P(CliVerifyBatch, EveryJobExactlyOnceWithProgressOnStderr) {
    const int workers = GetParam();
    TempDir dir;
    useFake(dir);
    const std::string jobs = jobList(dir, 16, "sleep_ms=40");
    const CliResult r = runCli({"verify", "--batch", jobs, "--project", dir.path("p.reach"),
                                "--gpus", gpuList(workers), "--progress-interval", "0", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["total"], 16);
    EXPECT_EQ(doc["done"], 16);
    EXPECT_EQ(doc["gpus"].size(), size_t(workers));
    std::set<int> indices;
    std::set<std::string> gpus;
    for (const auto& j : doc["results"]) {
        indices.insert(j["index"].get<int>());
        gpus.insert(j["gpu"]["index"].get<std::string>());
        EXPECT_EQ(j["gpu"]["uuid"].get<std::string>().rfind("GPU-fa4e", 0), 0u);
        EXPECT_EQ(j["gpu"]["sm_clock_after_mhz"], 1980);
        EXPECT_TRUE(j["stored"].get<bool>());
    }
    EXPECT_EQ(indices.size(), 16u);
    EXPECT_EQ(int(gpus.size()), workers);
    const auto runs = events(dir, "run");
    EXPECT_EQ(runs.size(), 16u);
    for (const auto& [c, n] : runs)
        EXPECT_EQ(n, 1) << c << " ran " << n << " times";
    // Progress: one line per result here (interval 0), the last says everything is done.
    int progress = 0;
    for (const std::string& line : r.errLines())
        progress += line.rfind("batch: ", 0) == 0;
    EXPECT_GE(progress, 16);
    EXPECT_NE(r.err.find("batch: 16/16 done (0 failed), 0 left"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("jobs/h"), std::string::npos);
    ProjectStore store = ProjectStore::open(dir.path("p.reach"), ProjectStore::Mode::MustExist);
    EXPECT_EQ(loadVerifications(store).size(), 16u);
}

INSTANTIATE_TEST_SUITE_P(Workers, CliVerifyBatch, ::testing::Values(1, 2, 8));

TEST(CliVerifyBatchResume, AKilledBatchResumesWithoutRunningAnyJobTwice) {
    TempDir dir;
    useFake(dir);
    const std::string jobs = jobList(dir, 12, "sleep_ms=300");
    const std::string project = dir.path("p.reach");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(REACH_CLI, REACH_CLI, "verify", "--batch", jobs.c_str(), "--project", project.c_str(),
              "--gpus", "0,1", nullptr);
        _exit(127);
    }
    // Kill it (no chance to clean up) once a few results are stored.
    size_t stored = 0;
    for (int i = 0; i < 200 && stored < 4; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        try {
            ProjectStore s = ProjectStore::open(project, ProjectStore::Mode::MustExist);
            stored = loadVerifications(s).size();
        } catch (const std::exception&) {
        }
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_GE(stored, 4u);
    // Its verifiers died with it: nothing it started finishes afterwards.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto runsBefore = events(dir, "run");
    std::set<std::string> storedBefore;
    {
        ProjectStore s = ProjectStore::open(project, ProjectStore::Mode::MustExist);
        for (const StoredVerification& v : loadVerifications(s))
            storedBefore.insert(
                fs::path(v.json.empty() ? ""
                                        : nlohmann::json::parse(v.json).value("candidate_file", ""))
                    .filename()
                    .string());
    }
    ASSERT_LT(storedBefore.size(), 12u) << "the batch finished before it was killed";
    for (const auto& [c, n] : runsBefore)
        EXPECT_TRUE(storedBefore.count(c)) << c << " finished after the batch was killed";
    fs::rename(dir.path("fake.log"), dir.path("first.log"));

    const CliResult again = runCli(
        {"verify", "--batch", jobs, "--project", project, "--gpus", "0,1", "--resume", "--json"});
    ASSERT_EQ(again.status, 0) << again.err;
    const auto doc = nlohmann::json::parse(again.out);
    EXPECT_EQ(doc["skipped"].get<size_t>(), storedBefore.size());
    EXPECT_EQ(doc["done"].get<size_t>(), 12 - storedBefore.size());
    // No job whose result was stored ran again; every job is stored exactly once.
    for (const auto& [c, n] : events(dir, "start"))
        EXPECT_FALSE(storedBefore.count(c)) << c << " ran twice";
    ProjectStore s = ProjectStore::open(project, ProjectStore::Mode::MustExist);
    std::map<std::string, int> perCandidate;
    for (const StoredVerification& v : loadVerifications(s))
        ++perCandidate[v.candidateHash];
    EXPECT_EQ(perCandidate.size(), 12u);
    for (const auto& [h, n] : perCandidate)
        EXPECT_EQ(n, 1) << h;
}

TEST(CliVerifyBatchSpread, WarnsWhenTheSameCandidateDiffersByMoreThanThreePercent) {
    TempDir dir;
    useFake(dir);
    setenv("FAKE_GPU_SKEW", "1:1.05", 1);
    const std::string jobs = jobList(dir, 2, "sleep_ms=1");
    const CliResult r = runCli({"verify", "--batch", jobs, "--gpus", "0,1", "--each-gpu",
                                "--project", dir.path("p.reach")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("4 of 4 jobs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("warning: timing spread: line 1 c0.cu"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("5.0 % across GPUs"), std::string::npos) << r.out;
    unsetenv("FAKE_GPU_SKEW");
    const CliResult even = runCli({"verify", "--batch", jobs, "--gpus", "0,1", "--each-gpu"});
    EXPECT_EQ(even.out.find("warning:"), std::string::npos) << even.out;
}

TEST(CliVerifyBatchRecords, RecordsBecomeJobsAndUnverifiedSelects) {
    TempDir dir;
    useFake(dir);
    fs::create_directories(dir.path("problems"));
    writeFile(dir.path("problems/softmax_1.json"), "{\"op\": \"softmax\"}\n");
    writeFile(dir.path("a.cu"), "sleep_ms=1\n");
    writeFile(dir.path("b.cu"), "verdict=fail\n");
    writeFile(dir.path("runs.jsonl"),
              "{\"problem_id\":\"softmax_1\",\"model\":\"m\",\"sample_id\":\"0\",\"compiled\":true,"
              "\"correct\":true,\"speedup\":2,\"artifact_path\":\"a.cu\"}\n"
              "{\"problem_id\":\"softmax_1\",\"model\":\"m\",\"sample_id\":\"1\",\"compiled\":true,"
              "\"correct\":true,\"speedup\":3,\"artifact_path\":\"b.cu\","
              "\"verification\":\"passed\"}\n");
    const CliResult all =
        runCli({"verify", "--batch", dir.path("runs.jsonl"), "--gpus", "0", "--json"});
    EXPECT_EQ(all.status, 1) << all.err;  // one candidate fails: the data says no
    EXPECT_EQ(nlohmann::json::parse(all.out)["total"], 2);
    const CliResult some = runCli(
        {"verify", "--batch", dir.path("runs.jsonl"), "--gpus", "0", "--unverified", "--json"});
    EXPECT_EQ(some.status, 0) << some.err;
    const auto doc = nlohmann::json::parse(some.out);
    EXPECT_EQ(doc["total"], 1);
    EXPECT_EQ(doc["left_out"], 1);
}

TEST(CliVerifyBatchErrors, OneLineAndStatusTwo) {
    TempDir dir;
    useFake(dir);
    const std::string jobs = jobList(dir, 1, "sleep_ms=1");
    CliResult r = runCli({"verify", "--batch", jobs, "--resume"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--resume needs --project"), std::string::npos) << r.err;

    setenv("CUDA_VISIBLE_DEVICES", "", 1);  // no GPU visible
    r = runCli({"verify", "--batch", jobs});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--gpus all: device: a GPU to verify on"), std::string::npos) << r.err;
    unsetenv("CUDA_VISIBLE_DEVICES");

    r = runCli({"verify", "--batch", dir.path("missing.txt")});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind(dir.path("missing.txt") + ": no such file", 0), 0u) << r.err;

    // A job list naming a file outside its folder: that job is refused, the others run.
    const fs::path outside =
        fs::temp_directory_path() / ("reach_outside_" + std::to_string(getpid()) + ".cu");
    writeFile(outside.string(), "sleep_ms=1\n");
    writeFile(dir.path("mixed.txt"), "problem.json c0.cu\nproblem.json " + outside.string() + "\n");
    r = runCli({"verify", "--batch", dir.path("mixed.txt"), "--gpus", "0"});
    fs::remove(outside);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("refused: " + dir.path("mixed.txt") + ": line 2: candidate"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("1 of 1 jobs"), std::string::npos) << r.out;

    // A job list whose args would loosen the oracle or name a file outside its folder: refused
    // whole, in one line naming the list and the entry, before anything runs.
    writeFile(dir.path("args.json"),
              R"([{"problem": "problem.json", "candidate": "c0.cu", "args": ["--reps", "5"]},
                  {"problem": "problem.json", "candidate": "c0.cu",
                   "args": ["--thresholds", "/etc/loose_thresholds.json"]}])");
    r = runCli({"verify", "--batch", dir.path("args.json"), "--gpus", "0"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind(dir.path("args.json") + ": entry 2: key \"args\": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("'--thresholds'"), std::string::npos) << r.err;
}

}  // namespace reach_test_cliverifybatch_test
