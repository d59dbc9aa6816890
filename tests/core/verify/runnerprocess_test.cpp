// A runner process (core/verify/runnerprocess.h): its channel is descriptor 3 whatever number it
// had here, its output is a capped log never parsed, and end() leaves nothing of its group.
#include "core/verify/runnerprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

using reach::ChannelError;
using reach::channelPair;
using reach::MessageChannel;
using reach::RunnerProcess;

namespace {

// A shell runner: `script` runs with the channel on descriptor 3.
std::vector<std::string> sh(const std::string& script) {
    return {"/bin/sh", "-c", script};
}

bool alive(pid_t pid) {
    return ::kill(pid, 0) == 0;
}

}  // namespace

TEST(RunnerProcess, SpeaksOnDescriptorThreeAndItsOutputIsOnlyALog) {
    auto [controller, runnerEnd] = channelPair();
    RunnerProcess r(sh("echo '{\"verdict\":\"pass\"}'; printf '{\"op\":\"hello\"}' >&3; "
                       "read x; echo stdin=$x; sleep 5"),
                    std::move(runnerEnd));
    const auto [msg, fds] = controller.receive(10);
    EXPECT_EQ(msg["op"], "hello");
    std::string log;
    for (int i = 0; i < 100 && log.find("stdin=") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        log = r.logTail();
    }
    EXPECT_NE(log.find("{\"verdict\":\"pass\"}"), std::string::npos);  // kept, never read
    EXPECT_NE(log.find("stdin=\n"), std::string::npos);                // stdin is /dev/null
    EXPECT_FALSE(r.exited());
    r.end();
}

TEST(RunnerProcess, AChannelEndAlreadyAtDescriptorThreeStillReachesTheRunner) {
    auto [first, runnerEnd] = channelPair();
    // The controller's end away from 3; the runner's end at 3, close-on-exec as channelPair
    // makes it, whatever the test process held there moved aside and put back after.
    MessageChannel controller(::fcntl(first.fd(), F_DUPFD_CLOEXEC, 10));
    first = MessageChannel();
    int saved = -1;
    int end = runnerEnd.release();
    if (end != 3) {
        saved = ::fcntl(3, F_DUPFD_CLOEXEC, 10);  // -1 when 3 is free
        ASSERT_EQ(::dup3(end, 3, O_CLOEXEC), 3);
        ::close(end);
    }
    {
        RunnerProcess r(sh("printf '{\"op\":\"three\"}' >&3; sleep 5"), MessageChannel(3));
        EXPECT_EQ(controller.receive(10).first["op"], "three");
        r.end();
    }
    if (saved >= 0) {
        ::dup3(saved, 3, O_CLOEXEC);
        ::close(saved);
    }
}

TEST(RunnerProcess, EndKillsTheRunnerAndWhatItStartedInItsGroup) {
    auto [controller, runnerEnd] = channelPair();
    RunnerProcess r(sh("sleep 300 & printf '{\"child\":%d}' $! >&3; wait"), std::move(runnerEnd));
    const auto [msg, fds] = controller.receive(10);
    const pid_t child = msg["child"].get<int>();
    const pid_t runner = r.pid();
    ASSERT_TRUE(alive(child));
    const auto t0 = std::chrono::steady_clock::now();
    r.end();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
    EXPECT_FALSE(alive(runner));  // reaped: no zombie left to signal
    for (int i = 0; i < 100 && alive(child); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // The orphan is killed with the group; a test process is no subreaper, so init reaps it.
    EXPECT_FALSE(alive(child));
    r.end();  // idempotent
}

TEST(RunnerProcess, ItsLogIsCappedAtTheTail) {
    auto [controller, runnerEnd] = channelPair();
    RunnerProcess r(sh("i=0; while [ $i -lt 3000 ]; do printf '%0100d\\n' $i; i=$((i+1)); done; "
                       "echo LAST; printf '{}' >&3; sleep 5"),
                    std::move(runnerEnd));
    controller.receive(20);
    std::string log;
    for (int i = 0; i < 200 && log.find("LAST") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        log = r.logTail();
    }
    EXPECT_NE(log.find("LAST"), std::string::npos);
    EXPECT_LE(log.size(), RunnerProcess::kLogTail);
    EXPECT_EQ(log.find(std::string(100, '0') + "\n"),
              std::string::npos);  // the first line is long gone
    r.end();
}

TEST(RunnerProcess, ARunnerThatCannotStartIsAnExitNotAHang) {
    auto [controller, runnerEnd] = channelPair();
    RunnerProcess r({"/nonexistent/runner"}, std::move(runnerEnd));
    try {
        controller.receive(10);
        ADD_FAILURE() << "a message from nothing";
    } catch (const ChannelError& e) {
        EXPECT_EQ(e.kind(), ChannelError::Kind::Gone);
    }
    int signal = 0;
    for (int i = 0; i < 100 && !r.exited(&signal); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(r.exited(&signal));
    EXPECT_EQ(signal, -1);
}
