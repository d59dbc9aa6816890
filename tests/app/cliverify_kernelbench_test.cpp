// `reach-cli verify` on KernelBench-format candidates, end to end through reach-verify and the
// Python worker, on the CPU (the worker's test device; CI has no GPU): the two verdicts, `fooled`,
// the JSON contract, bad input as one line with exit 2, and the records they become.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "clirunner.h"
#include "core/base/sha256.h"

namespace reach_test_cliverify_kernelbench_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::runCli;

namespace {

class CliVerifyKernelBench : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch (scripts/deps installs python3-torch)";
        setenv("REACH_PYTHON", REACH_TEST_PYTHON, 1);
        // A cache of this test's own: nothing measured by an earlier run (on a CPU whose load
        // changes from one test to the next) is reused here unless the test does so itself.
        setenv("REACH_CACHE_DIR", cacheRoot.path("cache").c_str(), 1);
    }
    void TearDown() override { unsetenv("REACH_CACHE_DIR"); }
    reach::test::TempDir cacheRoot;
    static std::vector<std::string> verify(const std::string& problem, const std::string& cand,
                                           const std::vector<std::string>& more = {}) {
        return reach::test::kernelBenchVerifyArgs(problem, cand, more);
    }
};

}  // namespace

TEST_F(CliVerifyKernelBench, ZerosFoolKernelBenchOnAWideSoftmaxNotReach) {
    const auto r = runCli(verify("23_Softmax.py", "zeros_like.py"));
    ASSERT_EQ(r.status, 1) << r.err;  // the data says no
    const json j = json::parse(r.out);
    EXPECT_EQ(j["format"], "kernelbench");
    EXPECT_EQ(j["verdict"], "fail");
    EXPECT_TRUE(j["kernelbench"]["correctness"].get<bool>());  // KernelBench: correct (5 / 5)
    EXPECT_EQ(j["kernelbench"]["correctness_trials"], "(5 / 5)");
    EXPECT_EQ(j["reach"]["verdict"], "fail");
    EXPECT_TRUE(j["fooled"].get<bool>());
    EXPECT_NE(j["fooled_reason"].get<std::string>().find("rel_frobenius"), std::string::npos);
    EXPECT_TRUE(j["metrics"]["zeros_pass_kernelbench"].get<bool>());  // the degenerate flag
    EXPECT_TRUE(j["reach"]["degenerate_reference"].get<bool>());
}

TEST_F(CliVerifyKernelBench, ACorrectCandidatePassesBothAndIsTimedAgainstEager) {
    const auto r = runCli(verify("23_Softmax.py", "softmax_correct.py"));
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["verdict"], "pass");
    EXPECT_FALSE(j["fooled"].get<bool>());
    EXPECT_TRUE(j["kernelbench"]["correctness"].get<bool>());
    ASSERT_TRUE(j["timing"].is_object());
    EXPECT_EQ(j["timing"]["reps"], 5);
    ASSERT_TRUE(j["baseline"].is_object());
    EXPECT_EQ(j["baseline"]["kind"], "eager");
    EXPECT_GT(j["speedup"].get<double>(), 0);
    for (const char* key : {"checks", "thresholds", "device", "reasons", "flags"})
        EXPECT_TRUE(j.contains(key)) << key;
    // The bytes verified, by which a result is matched to a benchmark's problem, and the eager
    // loop's repetitions, which the exact projection resamples (docs/benchmark.md).
    const std::string dir = std::string(REACH_TEST_DATA) + "/kernelbench-py/";
    EXPECT_EQ(j["problem_sha256"], reach::Sha256::hexOfFile(dir + "problems/23_Softmax.py"));
    EXPECT_EQ(j["candidate_sha256"],
              reach::Sha256::hexOfFile(dir + "candidates/softmax_correct.py"));
    const json& eager = j["reach"]["baselines"][0];
    EXPECT_EQ(eager["kind"], "eager");
    EXPECT_EQ(eager["timing"]["clock"]["runner_us"].size(), 5u);
}

TEST_F(CliVerifyKernelBench, EveryCheatOfTheListGetsAFail) {
    struct Case {
        const char* problem;
        const char* candidate;
        const char* trips;  // a check or flag that must be among the failed ones
    };
    for (const Case& c : {Case{"23_Softmax.py", "softmax_chunked_1024.py", "rel_frobenius"},
                          Case{"23_Softmax.py", "softmax_inplace.py", "inputs_unchanged"},
                          Case{"23_Softmax.py", "softmax_zero_inputs.py", "inputs_unchanged"},
                          Case{"23_Softmax.py", "softmax_cache_ptr.py", "timed_outputs"}}) {
        SCOPED_TRACE(c.candidate);
        const auto r = runCli(verify(c.problem, c.candidate));
        ASSERT_EQ(r.status, 1) << r.err;
        const json j = json::parse(r.out);
        EXPECT_EQ(j["verdict"], "fail");
        bool tripped = false;
        for (const json& check : j["checks"])
            tripped = tripped || (check["name"] == c.trips && !check["passed"].get<bool>());
        EXPECT_TRUE(tripped) << j["reasons"].dump();
    }
}

TEST_F(CliVerifyKernelBench, BadCandidatesAreVerdictsBadProblemsAreOneLine) {
    auto r = runCli(verify("23_Softmax.py", "syntax_error.py"));
    ASSERT_EQ(r.status, 1) << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j["verdict"], "compile_error");
    EXPECT_NE(j["reasons"][0].get<std::string>().find("line"), std::string::npos) << j["reasons"];
    // Each verdict with the document that gave it: a wrong one says why (reasons, log).
    for (const auto& [candidate, expected] : {std::pair{"no_modelnew.py", "compile_error"},
                                              std::pair{"missing_import.py", "compile_error"},
                                              std::pair{"softmax_wrong_shape.py", "fail"},
                                              std::pair{"softmax_non_tensor.py", "fail"}}) {
        r = runCli(verify("23_Softmax.py", candidate));
        EXPECT_EQ(json::parse(r.out)["verdict"], expected) << candidate << ": " << r.out << r.err;
    }

    // The user's problem without Model: one line naming it, exit 2, no document.
    r = runCli(verify("no_model.py", "softmax_correct.py"));
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("no_model.py"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Model"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST_F(CliVerifyKernelBench, NoPyTorchAndNoGpuAreOneLineAnswers) {
    reach::test::TempDir dir;
    // An interpreter without PyTorch: a Python that cannot import it.
    const std::string fake = dir.path("python-without-torch");
    reach::test::writeFile(fake, "#!/bin/sh\nexec /usr/bin/env python3 -S -I \"$@\"\n");
    std::system(("chmod +x " + fake).c_str());
    auto args = verify("23_Softmax.py", "softmax_correct.py", {"--python", fake});
    auto r = runCli(args);
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("no PyTorch in"), std::string::npos) << r.err;

    // The real interpreter, asked for the GPU this machine does not have (CI): "no GPU", exit 2.
    args = verify("23_Softmax.py", "softmax_correct.py");
    args.erase(std::find(args.begin(), args.end(), "--worker-device"));
    args.erase(std::find(args.begin(), args.end(), "cpu"));
    r = runCli(args);
    if (r.status == 2) {
        ASSERT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_NE(r.err.find("GPU"), std::string::npos) << r.err;
    } else {
        GTEST_SKIP() << "this machine has a GPU PyTorch can use";
    }
}

TEST_F(CliVerifyKernelBench, AResultBecomesARecordWhoseHarnessWasFooled) {
    reach::test::TempDir dir;
    const auto r = runCli(verify("23_Softmax.py", "zeros_like.py"));
    ASSERT_EQ(r.status, 1) << r.err;
    reach::test::writeFile(dir.path("zeros.json"), r.out);
    const auto s = runCli({"speedups", dir.path("zeros.json"), "--json"});
    ASSERT_EQ(s.status, 0) << s.err;
    const json doc = json::parse(s.out);
    ASSERT_EQ(doc["fooled"].size(), 1u);
    EXPECT_EQ(doc["fooled"][0]["problem"], "23_Softmax");
    EXPECT_NE(doc["fooled"][0]["harness"].get<std::string>().find("KernelBench"),
              std::string::npos);
    EXPECT_EQ(doc["groups"][0]["correct"], 1);  // KernelBench's word: correct
    // ... and a winner when it measured faster than eager: on a CPU shared with other tests an
    // all-zeros output is not always faster than a small softmax, so the expectation follows
    // the record's own speedup.
    const double speedup = json::parse(r.out)["speedup"].get<double>();
    EXPECT_EQ(doc["groups"][0]["winners"], speedup > 1.0 ? 1 : 0) << "speedup " << speedup;
    const auto v = runCli({"speedups", dir.path("zeros.json"), "--json", "--verified-only"});
    EXPECT_EQ(json::parse(v.out)["groups"][0]["winners"], 0);  // Reach's word: not a winner
}

// A re-verify reuses KernelBench's reproduced verdict (a function of the files, the options and
// the stack) and runs Reach's oracle again; --fresh reuses nothing (docs/kernelbench.md).
TEST_F(CliVerifyKernelBench, AReVerifyReusesKernelBenchsVerdictAndRunsReachsAgain) {
    reach::test::TempDir dir;
    const std::vector<std::string> cache = {"--cache-dir", dir.path("cache")};
    const auto first = runCli(verify("23_Softmax.py", "zeros_like.py", cache));
    ASSERT_EQ(first.status, 1) << first.err;
    const json a = json::parse(first.out);
    EXPECT_FALSE(a["kernelbench"].contains("reused"));
    EXPECT_TRUE(a["fooled"].get<bool>());

    const auto second = runCli(verify("23_Softmax.py", "zeros_like.py", cache));
    ASSERT_EQ(second.status, 1) << second.err;
    const json b = json::parse(second.out);
    ASSERT_TRUE(b["kernelbench"]["reused"].is_object()) << b["kernelbench"].dump();
    EXPECT_FALSE(b["kernelbench"]["phase_seconds"].contains("import_torch"));
    EXPECT_EQ(b["kernelbench"]["correctness_trials"], a["kernelbench"]["correctness_trials"]);
    EXPECT_TRUE(b["fooled"].get<bool>());
    EXPECT_EQ(b["verdict"], "fail");
    // Reach's part ran again, in full.
    EXPECT_TRUE(b["reach"]["phase_seconds"].contains("import_torch"));
    EXPECT_EQ(b["reach"]["runs"].size(), a["reach"]["runs"].size());

    std::vector<std::string> text = verify("23_Softmax.py", "zeros_like.py", cache);
    text.erase(std::find(text.begin(), text.end(), "--json"));
    const auto summary = runCli(text);
    EXPECT_NE(summary.out.find("(reused: measured "), std::string::npos) << summary.out;

    std::vector<std::string> fresh = cache;
    fresh.push_back("--fresh");
    const auto third = runCli(verify("23_Softmax.py", "zeros_like.py", fresh));
    ASSERT_EQ(third.status, 1) << third.err;
    EXPECT_FALSE(json::parse(third.out)["kernelbench"].contains("reused"));
}

TEST_F(CliVerifyKernelBench, AChildHoldingTheWorkersPipesDoesNotHoldTheJob) {
    // The candidate forks, at import, a child that keeps every descriptor of its process open for
    // two minutes (KernelBench's reproduction loads it in the worker, whose stdout reach-verify
    // reads): once the worker has exited, its output is read for a moment and its group killed,
    // instead of the job waiting out the worker's timeout for an end of file.
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runCli(verify("add_random.py", "forks_a_holder.py", {"--timeout", "300"}));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["verdict"], "pass");
    EXPECT_LT(s, 90) << "the job waited for the forked child";
}

TEST(ReachVerifyUsage, OneBadOptionIsOneLine) {
    const std::string verifier =
        std::filesystem::path(REACH_CLI).parent_path().string() + "/reach-verify";
    FILE* p = ::popen((verifier + " --no-such-option 2>&1 1>/dev/null").c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string err;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, p))
        err.append(buf, n);
    const int status = ::pclose(p);
    EXPECT_EQ(WEXITSTATUS(status), 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("unknown argument '--no-such-option'"), std::string::npos) << err;
}

// reach-verify reads its command line with the reader reach-cli uses (app/args/cliargs.h): the
// same spellings (--reps=5), the same errors, each value checked in the order given.
TEST(ReachVerifyUsage, ReadsTheCommandLineAsReachCliDoes) {
    const std::string verifier =
        std::filesystem::path(REACH_CLI).parent_path().string() + "/reach-verify";
    auto run = [&](const std::string& args, int* status) {
        FILE* p = ::popen((verifier + " " + args + " 2>&1").c_str(), "r");
        std::string out;
        char buf[4096];
        while (size_t n = std::fread(buf, 1, sizeof buf, p))
            out.append(buf, n);
        *status = WEXITSTATUS(::pclose(p));
        return out;
    };
    int status = 0;
    std::string out = run("--reps=many --seed x", &status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("--reps: expected a number, got 'many'"), std::string::npos) << out;
    out = run("--seed 1 --seed=-3", &status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("--seed: expected a non-negative integer, got '-3'"), std::string::npos)
        << out;
    // A count is checked before it becomes an int: NaN and 1e300 are bad usage, not UB.
    for (const char* bad : {"--reps nan", "--reps 1e300", "--warmup -1", "--seed-count inf"}) {
        out = run(bad, &status);
        EXPECT_EQ(status, 2) << bad;
        EXPECT_NE(out.find("expected"), std::string::npos) << bad << ": " << out;
    }
    out = run("--sandbox=yes", &status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("--sandbox takes no value"), std::string::npos) << out;
    out = run("problem.json", &status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("unknown argument 'problem.json'"), std::string::npos) << out;
    // -h is --help, and what follows --help is not judged.
    out = run("-h --no-such-option", &status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(out.rfind("usage: reach-verify", 0), 0u) << out;
}

}  // namespace reach_test_cliverify_kernelbench_test
