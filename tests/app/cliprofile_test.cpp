// reach-cli profile (issue 41, item 3): a small PyTorch training workload
// (tests/data/capture/train_mlp.py) recorded on this machine's CPU PyTorch, its steps marked by
// reach_step(), its own prof.step(), its optimizer, or not at all (the whole run); a workload that
// fails is exit 1 with its error, bad usage and input one line and exit 2. The GPU side (the
// breakdown and extraction of a recording) runs on the GPU machine (docs/capture.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "clirunner.h"

namespace reach_test_cliprofile_test {  // unity builds: this file's names stay its own

using nlohmann::json;
namespace fs = std::filesystem;
using reach::test::runCli;
using reach::test::TempDir;

namespace {

const std::string kWorkload = std::string(REACH_TEST_DATA) + "/capture/train_mlp.py";

class CliProfile : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch on this machine";
    }
    void TearDown() override {
        unsetenv("MARK");
        unsetenv("STEPS");
    }
    // reach-cli profile --json on the CPU, the workload marking its steps as `mark` says.
    json profile(const std::string& mark, const std::string& out,
                 const std::vector<std::string>& more = {}) {
        setenv("MARK", mark.c_str(), 1);
        std::vector<std::string> args = {"profile", "--device", "cpu", "--steps",
                                         "3",       "--out",    out,   "--json"};
        args.insert(args.end(), more.begin(), more.end());
        args.insert(args.end(), {"--", REACH_TEST_PYTHON, kWorkload});
        const auto r = runCli(args);
        EXPECT_EQ(r.status, 0) << r.err;
        return r.status == 0 ? json::parse(r.out) : json();
    }
    TempDir dir;
};

bool startsGzip(const std::string& path) {
    const std::string bytes = reach::test::readFile(path).substr(0, 2);
    return bytes.size() == 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
}

}  // namespace

// Each way of marking steps: 2 warm-up steps, then 3 profiled; the trace is gzip, the recording
// has its operators' shapes.
TEST_F(CliProfile, StepsAreMarkedAsTheWorkloadMarksThem) {
    for (const auto& [mark, marker] :
         {std::pair{"reach_step", "reach_step"}, std::pair{"prof", "prof.step"},
          std::pair{"none", "optimizer"}}) {
        SCOPED_TRACE(mark);
        const std::string out = dir.path(std::string(mark) + ".json.gz");
        const json doc = profile(mark, out);
        ASSERT_TRUE(doc.is_object());
        EXPECT_EQ(doc["marker"], marker);
        EXPECT_EQ(doc["profiled"], "steps");
        EXPECT_EQ(doc["profiled_steps"], 3);
        EXPECT_EQ(doc["steps_marked"], 5);
        EXPECT_EQ(doc["wall_us"].size(), 3u);
        EXPECT_EQ(doc["trace"], out);
        EXPECT_TRUE(startsGzip(out));
        EXPECT_GT(doc["recording"]["operator_calls"].get<int>(), 100);
        EXPECT_GT(doc["recording"]["with_shapes"].get<int>(), 50);
        EXPECT_TRUE(doc["breakdown"].is_null());  // a CPU recording: no GPU time
        bool saidCpu = false;
        for (const json& a : doc["advice"])
            saidCpu |= a.get<std::string>().find("recorded on the CPU") != std::string::npos;
        EXPECT_TRUE(saidCpu) << doc["advice"].dump();
    }
}

// A foreach optimizer (one call over lists of tensors) records its lists empty: the advice says
// what to change.
TEST_F(CliProfile, AForeachOptimizerIsNamedWithWhatToChange) {
    const json doc = profile("foreach", dir.path("foreach.json.gz"));
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["marker"], "optimizer");
    ASSERT_FALSE(doc["recording"]["foreach_lists_unrecorded"].empty());
    bool said = false;
    for (const json& a : doc["advice"])
        said |= a.get<std::string>().find("construct the optimizer with foreach=False") !=
                std::string::npos;
    EXPECT_TRUE(said) << doc["advice"].dump();
    // The per-parameter optimizer of the same workload has none.
    EXPECT_TRUE(profile("none", dir.path("plain.json.gz"))["recording"]["foreach_lists_unrecorded"]
                    .empty());
}

// A workload whose steps never get past the warm-up is profiled whole, and says so.
TEST_F(CliProfile, TooFewStepsProfileTheWholeRun) {
    setenv("STEPS", "1", 1);
    const json doc = profile("none", dir.path("whole.json.gz"));
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["profiled"], "whole");
    EXPECT_NE(doc["advice"][0].get<std::string>().find("the whole run was profiled"),
              std::string::npos)
        << doc["advice"].dump();
    EXPECT_GT(doc["recording"]["operator_calls"].get<int>(), 0);
    // Three steps after two of warm-up: two profiled, "partial".
    setenv("STEPS", "4", 1);
    const json partial = profile("reach_step", dir.path("partial.json.gz"));
    ASSERT_TRUE(partial.is_object());
    EXPECT_EQ(partial["profiled"], "partial");
    EXPECT_EQ(partial["profiled_steps"], 2);
}

TEST_F(CliProfile, AFailingWorkloadIsExit1WithItsError) {
    const std::string script = dir.path("boom.py");
    reach::test::writeFile(script, "import torch\nraise RuntimeError('boom at step 0')\n");
    const std::string out = dir.path("boom.json.gz");
    const auto r =
        runCli({"profile", "--device", "cpu", "--out", out, "--", REACH_TEST_PYTHON, script});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find("the workload raised RuntimeError: boom at step 0"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));  // nothing half-written
}

TEST_F(CliProfile, BadUsageAndInputAreOneLineAndExit2) {
    auto expect2 = [](const reach::test::CliResult& r, const std::string& part) {
        EXPECT_EQ(r.status, 2) << r.out;
        ASSERT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    };
    expect2(runCli({"profile", "--device", "cpu"}), "after --: the workload");
    expect2(runCli({"profile", "--device", "tpu", "--", "python3", kWorkload}),
            "--device: expected cuda or cpu");
    expect2(runCli({"profile", "--steps", "0", "--", "python3", kWorkload}), "--steps");
    expect2(runCli({"profile", "--device", "cpu", "--", REACH_TEST_PYTHON, dir.path("none.py")}),
            "a Python script to run");
    expect2(runCli({"profile", "--device", "cpu", "--project", dir.path("p.reach"), "--",
                    REACH_TEST_PYTHON, kWorkload}),
            "a CPU recording has no GPU time");
    // The trace never overwrites the script it runs.
    const std::string copy = dir.path("train.py");
    fs::copy_file(kWorkload, copy);
    expect2(runCli({"profile", "--device", "cpu", "--out", copy, "--", REACH_TEST_PYTHON, copy}),
            "a trace file that is not one of the inputs");
    EXPECT_EQ(reach::test::readFile(copy), reach::test::readFile(kWorkload));
    // An interpreter that does not start.
    expect2(runCli({"profile", "--device", "cpu", "--out", dir.path("x.json.gz"), "--",
                    dir.path("no-python"), kWorkload}),
            "an interpreter that starts");
}

}  // namespace reach_test_cliprofile_test
