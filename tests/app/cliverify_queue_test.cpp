// Verdicts that hold under load (issue 38), on the CPU as CI runs them: a job that waits for its
// GPU (another process holds the GPU's timing lock) is not timed while it waits. An honest
// verify whose lock is held for 40 s by someone else, with --timeout 30, passes (two at once on
// one lock too), and says how long it waited; a wait past --queue-timeout is "the GPU was busy",
// an error, never `timeout`.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "clirunner.h"

extern char** environ;

namespace reach_test_cliverify_queue_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::CliOptions;
using reach::test::runCli;

namespace {

// Another process holding `lock` exclusively for `seconds` (util-linux flock), as another job
// timing on the same GPU does; the constructor returns once it holds it.
class LockHolder {
public:
    LockHolder(const std::string& lock, int seconds) {
        const std::string s = std::to_string(seconds);
        const char* argv[] = {"flock", "-x", lock.c_str(), "sleep", s.c_str(), nullptr};
        // In a process group of its own: flock's `sleep` holds the lock (and the test's output)
        // and must go with it.
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
        if (posix_spawnp(&m_pid, "flock", nullptr, &attr, const_cast<char**>(argv), environ) != 0)
            m_pid = -1;
        posix_spawnattr_destroy(&attr);
        const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        for (int i = 0; i < 500 && m_pid > 0; ++i) {  // until the holder has it
            if (flock(fd, LOCK_EX | LOCK_NB) != 0)
                break;
            flock(fd, LOCK_UN);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        close(fd);
    }
    ~LockHolder() {
        if (m_pid > 0) {
            kill(-m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    bool holding() const { return m_pid > 0; }

private:
    pid_t m_pid = -1;
};

class CliVerifyQueue : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(REACH_TEST_PYTHON).empty())
            GTEST_SKIP() << "no Python with PyTorch (scripts/deps installs python3-torch)";
        if (system("command -v flock >/dev/null 2>&1") != 0)
            GTEST_SKIP() << "no flock (util-linux)";
        setenv("REACH_PYTHON", REACH_TEST_PYTHON, 1);
        setenv("REACH_CACHE_DIR", dir.path("cache").c_str(), 1);
    }
    void TearDown() override { unsetenv("REACH_CACHE_DIR"); }
    CliOptions locked() const {
        CliOptions o;
        o.env = {{"REACH_GPU_LOCK", lock}};
        return o;
    }
    reach::test::TempDir dir;
    const std::string lock = dir.path("gpu.lock");
};

}  // namespace

TEST_F(CliVerifyQueue, AnHonestVerifyWaitingFortySecondsForTheLockPassesTwoAtOnce) {
    const LockHolder holder(lock, 40);
    ASSERT_TRUE(holder.holding());
    const auto start = std::chrono::steady_clock::now();
    const auto args = reach::test::kernelBenchVerifyArgs("23_Softmax.py", "softmax_correct.py",
                                                         {"--timeout", "30"});
    auto first = reach::test::startCli(args, locked());
    auto second = reach::test::startCli(args, locked());
    for (auto* p : {&first, &second}) {
        const auto r = p->wait();
        ASSERT_EQ(r.status, 0) << r.err << r.out;
        const json j = json::parse(r.out);
        EXPECT_EQ(j["verdict"], "pass") << r.out;
        // It waited for the lock most of the 40 s, and said so apart from its work.
        EXPECT_GT(j["queue_s"].get<double>(), 20) << r.out;
        EXPECT_LT(j["queue_s"].get<double>(), j["wall_seconds"].get<double>() + 1) << r.out;
    }
    EXPECT_GT(std::chrono::steady_clock::now() - start, std::chrono::seconds(35));
}

TEST_F(CliVerifyQueue, AWaitPastTheQueueLimitIsTheGpuBeingBusyNeverATimeout) {
    const LockHolder holder(lock, 120);
    ASSERT_TRUE(holder.holding());
    const auto start = std::chrono::steady_clock::now();
    const auto r =
        runCli(reach::test::kernelBenchVerifyArgs("23_Softmax.py", "softmax_correct.py",
                                                  {"--timeout", "600", "--queue-timeout", "5"}),
               locked());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
    const json j = json::parse(r.out);
    EXPECT_EQ(j["verdict"], "error") << r.out;
    ASSERT_FALSE(j["reasons"].empty());
    EXPECT_NE(j["reasons"][0].get<std::string>().find("the GPU was busy for"), std::string::npos)
        << r.out;
    EXPECT_GE(j["queue_s"].get<double>(), 5) << r.out;
}

}  // namespace reach_test_cliverify_queue_test
