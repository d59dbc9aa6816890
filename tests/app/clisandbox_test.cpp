// `reach-cli verify --sandbox` (docs/security.md): the candidate runs under bubblewrap and cannot
// see the user's home directory or write outside the job's cache. Run on the CPU with a
// KernelBench-format candidate (Python the worker imports), which reports what it could see
// through the error it raises; the same candidate without --sandbox sees everything, so the test
// shows the sandbox is what hides it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "clirunner.h"

namespace reach_test_clisandbox_test {  // unity builds: this file's names stay its own

using reach::test::CliResult;
using reach::test::readFile;
using reach::test::runCli;
using reach::test::TempDir;
using reach::test::writeFile;

namespace {

const char* kSpy = R"(import os
import torch
import torch.nn as nn

home = os.environ.get("HOME", "")
seen = "SECRET_VISIBLE" if os.path.exists(os.path.join(home, "secret.txt")) else "SECRET_HIDDEN"
try:
    with open(os.environ["REACH_TEST_OUTSIDE"], "w") as f:
        f.write("written")
    wrote = "WROTE_OUTSIDE"
except OSError:
    wrote = "NO_WRITE_OUTSIDE"


class ModelNew(nn.Module):
    def forward(self, x):
        raise RuntimeError(seen + " " + wrote)
)";

class CliSandbox : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch (scripts/deps installs python3-torch)";
        if (std::system("bwrap --ro-bind / / --unshare-all -- /bin/true >/dev/null 2>&1") != 0)
            GTEST_SKIP() << "bubblewrap cannot create namespaces here";
        setenv("REACH_PYTHON", REACH_TEST_PYTHON, 1);
    }
};

}  // namespace

TEST_F(CliSandbox, TheCandidateSeesNeitherTheHomeDirectoryNorAnythingOutsideItsJob) {
    TempDir home, job, outside;
    writeFile(home.path("secret.txt"), "the user's");
    writeFile(job.path("23_Softmax.py"),
              readFile(std::string(REACH_TEST_DATA) + "/kernelbench-py/problems/23_Softmax.py"));
    writeFile(job.path("spy.py"), kSpy);
    const std::string old = std::getenv("HOME") ? std::getenv("HOME") : "";
    setenv("HOME", home.root().c_str(), 1);
    setenv("REACH_CACHE_DIR", (home.root() + "/cache").c_str(), 1);
    setenv("REACH_TEST_OUTSIDE", outside.path("marker").c_str(), 1);
    auto run = [&](bool sandbox) {
        std::vector<std::string> a = {"verify",      "--problem",        job.path("23_Softmax.py"),
                                      "--candidate", job.path("spy.py"), "--worker-device",
                                      "cpu",         "--reps",           "1",
                                      "--json"};
        if (sandbox)
            a.push_back("--sandbox");
        return runCli(a);
    };
    const CliResult plain = run(false);
    EXPECT_NE(plain.out.find("SECRET_VISIBLE WROTE_OUTSIDE"), std::string::npos)
        << plain.out << plain.err;
    std::filesystem::remove(outside.path("marker"));

    const CliResult boxed = run(true);
    EXPECT_NE(boxed.out.find("SECRET_HIDDEN NO_WRITE_OUTSIDE"), std::string::npos)
        << boxed.out << boxed.err;
    EXPECT_FALSE(std::filesystem::exists(outside.path("marker")));
    EXPECT_FALSE(boxed.crashed);
    setenv("HOME", old.c_str(), 1);
    unsetenv("REACH_CACHE_DIR");
    unsetenv("REACH_TEST_OUTSIDE");
}

TEST(CliSandboxMissing, WithoutBubblewrapItIsOneLineNotIgnored) {
    setenv("REACH_BWRAP", "/nonexistent/bwrap", 1);
    const CliResult r =
        runCli({"verify", "--problem", "p.json", "--candidate", "c.cu", "--sandbox"});
    unsetenv("REACH_BWRAP");
    EXPECT_EQ(r.status, 2) << r.err;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("bubblewrap"), std::string::npos) << r.err;
}

}  // namespace reach_test_clisandbox_test
