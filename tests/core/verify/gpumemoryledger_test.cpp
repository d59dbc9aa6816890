// Memory admission on a shared GPU (core/verify/gpumemoryledger.h, issue 38): the C++ jobs and
// the KernelBench-format worker (resources/python/reach_kb/gpumemory.py) book in one ledger by
// one rule; a job that does not fit waits its turn and reports the wait as a wait for the GPU.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "core/verify/gpumemoryledger.h"
#include "core/verify/queueclock.h"
#include "tests/core/testfiles.h"

using namespace reach;
using reach::test::TempFolder;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A Python job booking through reach_kb.gpumemory: prints "booked" once admitted, holds
// `seconds`, then releases. Returns its pid and the pipe it prints on.
struct PythonJob {
    pid_t pid = -1;
    FILE* out = nullptr;
};

PythonJob pythonBooks(const std::string& ledger, long need, long total, double seconds) {
    const std::string code = "import sys, time; sys.path.insert(0, '" REACH_SOURCE_DIR
                             "/resources/python')\n"
                             "from reach_kb import gpumemory\n"
                             "b = gpumemory.admit(" +
                             std::to_string(need) + ", " + std::to_string(total) + ", path='" +
                             ledger + "', poll_s=0.05)\n" +
                             "print('booked', flush=True); time.sleep(" + std::to_string(seconds) +
                             ")\nb.release()\n";
    int fds[2];
    if (pipe(fds) != 0)
        return {};
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execlp("python3", "python3", "-c", code.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    return {pid, fdopen(fds[0], "r")};
}

bool readsBooked(FILE* f) {
    char line[64] = {0};
    return f && fgets(line, sizeof line, f) && std::string(line) == "booked\n";
}

}  // namespace

TEST(GpuMemoryLedger, OnlyWellFormedLinesBook) {
    const auto e = parseGpuMemoryLedger(
        "12 345 1000 A 1\ngarbage\n-5 345 1000 A 2\n13 345 -1 A 3\n"
        "14 345 99999999999999999999 A 4\n15 34x 1000 A 5\n16 345 1000 Q 6\n"
        "17 345 1000 W 7 extra\n18 345 2000 W 8\n");
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].pid, 12);
    EXPECT_EQ(e[0].state, 'A');
    EXPECT_EQ(e[1].pid, 18);
    EXPECT_EQ(e[1].bytes, 2000);
}

TEST(GpuMemoryLedger, AloneAlwaysFitsBesideOthersOnlyWhatFitsFirstComeFirstServed) {
    const GpuMemoryEntry running{11, "1", 40, 'A', 1};
    EXPECT_TRUE(gpuMemoryAdmits({{10, "1", 500, 'W', 1}}, 10, 500, 80, 1));
    EXPECT_TRUE(gpuMemoryAdmits({running, {10, "1", 30, 'W', 2}}, 10, 30, 80, 35));
    EXPECT_FALSE(gpuMemoryAdmits({running, {10, "1", 30, 'W', 2}}, 10, 30, 80, 20));
    EXPECT_FALSE(gpuMemoryAdmits({running, {10, "1", 50, 'W', 2}}, 10, 50, 80, -1));
    // A small job that would fit does not overtake a big one that asked first.
    EXPECT_FALSE(
        gpuMemoryAdmits({running, {12, "1", 60, 'W', 2}, {10, "1", 1, 'W', 3}}, 10, 1, 80, -1));
}

// The C++ and the Python sides read one ledger by one rule: each waits for the other.
TEST(GpuMemoryLedger, ACppJobAndAPythonJobWaitForEachOther) {
    TempFolder dir;
    const std::string ledger = dir.path("gpu.lock.memory");
    setenv("REACH_GPU_LOCK", dir.path("gpu.lock").c_str(), 1);
    ASSERT_EQ(GpuMemoryBooking::pathFromEnvironment(), ledger);
    unsetenv("REACH_QUEUE_FILE");
    const QueueFile queue = QueueFile::make();
    ASSERT_FALSE(queue.path().empty());
    setenv("REACH_QUEUE_FILE", queue.path().c_str(), 1);

    // Python books 70 of 100 for 3 s; C++ asks 50: it waits, and says it waited.
    PythonJob py = pythonBooks(ledger, 70, 100, 3.0);
    ASSERT_TRUE(readsBooked(py.out)) << "python3 could not book (reach_kb importable?)";
    const auto t0 = std::chrono::steady_clock::now();
    {
        const GpuMemoryBooking cpp(ledger, 50, 100, [] { return int64_t(-1); });
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_TRUE(cpp.booked());
        EXPECT_GT(waited, 1.0);
        EXPECT_GT(cpp.waitedSeconds(), 1.0);
        EXPECT_GT(queue.queuedSeconds(waited + 1), 1.0);
        int status = 0;
        waitpid(py.pid, &status, 0);
        fclose(py.out);

        // Now C++ holds 50: a Python job asking 60 waits until it ends.
        // Waited for by what the ledger says, not by a sleep: a Python start takes seconds on a
        // busy machine.
        py = pythonBooks(ledger, 60, 100, 0);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (slurp(ledger).find(" W ") == std::string::npos &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        EXPECT_NE(slurp(ledger).find(" W "), std::string::npos) << slurp(ledger);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few of its polls
        int st = 0;
        EXPECT_EQ(waitpid(py.pid, &st, WNOHANG), 0) << "the Python job started beside it";
    }
    EXPECT_TRUE(readsBooked(py.out));
    int status = 0;
    waitpid(py.pid, &status, 0);
    fclose(py.out);
    EXPECT_EQ(slurp(ledger), "");  // both released their lines
    unsetenv("REACH_GPU_LOCK");
    unsetenv("REACH_QUEUE_FILE");
}
