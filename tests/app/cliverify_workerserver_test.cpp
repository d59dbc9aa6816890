// KernelBench-format verification through the warm worker server (core/verify/workerserver.h,
// resources/python/reach_kbserver.py), end to end on the CPU: the same verdicts as without it,
// no `import torch` in the jobs, a hung job killed at its timeout with its whole process group,
// and a missing server is no failure (the worker starts by itself).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "clirunner.h"
#include "core/verify/workerserver.h"

namespace reach_test_cliverify_workerserver_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::runCli;

namespace {

const std::string kServer = std::string(REACH_SOURCE_DIR) + "/resources/python/reach_kbserver.py";

class CliVerifyWorkerServer : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch (scripts/deps installs python3-torch)";
        setenv("REACH_PYTHON", REACH_TEST_PYTHON, 1);
        std::string error;
        server =
            reach::WorkerServer::start(REACH_TEST_PYTHON, kServer, dir.path("s.sock"), 120, &error);
        ASSERT_TRUE(server) << error;
        setenv("REACH_KB_SERVER", server->socketPath().c_str(), 1);
    }
    void TearDown() override { unsetenv("REACH_KB_SERVER"); }
    std::vector<std::string> verify(const std::string& problem, const std::string& cand,
                                    std::vector<std::string> more = {}) {
        more.insert(more.end(), {"--cache-dir", dir.path("cache")});
        return reach::test::kernelBenchVerifyArgs(problem, cand, more);
    }
    reach::test::TempDir dir;
    std::unique_ptr<reach::WorkerServer> server;
};

}  // namespace

TEST_F(CliVerifyWorkerServer, VerdictsAreTheSameAndNoJobImportsPyTorch) {
    const auto r = runCli(verify("23_Softmax.py", "zeros_like.py", {"--fresh"}));
    ASSERT_EQ(r.status, 1) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["verdict"], "fail");
    EXPECT_TRUE(j["fooled"].get<bool>());
    // PyTorch was imported by the server: in the forked jobs `import torch` finds it loaded.
    EXPECT_LT(j["kernelbench"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    EXPECT_LT(j["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    EXPECT_EQ(r.err.find("starting the worker directly"), std::string::npos) << r.err;

    const auto ok = runCli(verify("23_Softmax.py", "softmax_correct.py", {"--fresh"}));
    ASSERT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(json::parse(ok.out)["verdict"], "pass");
}

TEST_F(CliVerifyWorkerServer, AHungJobIsKilledAtItsTimeoutWithItsGroup) {
    // --timeout 20: each worker gets 45 % of it (9 s); KernelBench's trials hang first.
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = runCli(verify("23_Softmax.py", "forward_hangs.py", {"--timeout", "20"}));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const json j = json::parse(r.out);
    EXPECT_EQ(j["kernelbench"]["verdict"], "timeout") << j["kernelbench"].dump();
    EXPECT_LT(s, 40);
    // The server is still there and has nothing left running: a next job is served.
    EXPECT_EQ(kill(server->pid(), 0), 0);
    const auto next = runCli(verify("23_Softmax.py", "softmax_correct.py", {"--fresh"}));
    EXPECT_EQ(next.status, 0) << next.err;
}

TEST_F(CliVerifyWorkerServer, NoServerAtTheSocketMeansTheWorkerStartsByItself) {
    setenv("REACH_KB_SERVER", dir.path("nobody-listens.sock").c_str(), 1);
    const auto r = runCli(verify("23_Softmax.py", "softmax_correct.py", {"--fresh"}));
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["verdict"], "pass");
    EXPECT_GT(j["reach"]["phase_seconds"]["import_torch"].get<double>(), 0.05);
    std::string why;
    EXPECT_FALSE(
        reach::runInWorkerServer(dir.path("nobody-listens.sock"), {"probe"}, 10, {}, &why));
    EXPECT_NE(why.find("no worker server"), std::string::npos) << why;
}

}  // namespace reach_test_cliverify_workerserver_test
