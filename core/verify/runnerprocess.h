#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/verify/channel.h"

namespace reach {

// A runner process of the controller's (docs/verifier.md, "Trust boundary"): started with one
// end of a channel as its descriptor 3, nothing on stdin, its stdout and stderr drained by a
// thread into a tail (the last kLogTail bytes: a log to show, never parsed). It leads its own
// process group and dies with its parent. end() kills the group and everything the runner left
// behind (the caller is a subreaper, processguard.h).
class RunnerProcess {
public:
    static constexpr size_t kLogTail = size_t(64) << 10;

    // argv[0] is run with `runnerEnd` as descriptor 3; throws std::runtime_error when it cannot
    // be started.
    RunnerProcess(const std::vector<std::string>& argv, MessageChannel runnerEnd);
    ~RunnerProcess();
    RunnerProcess(const RunnerProcess&) = delete;
    RunnerProcess& operator=(const RunnerProcess&) = delete;

    pid_t pid() const { return m_pid; }
    // Whether it has exited (reaps it), and how: a signal number, or -1 for a normal exit.
    bool exited(int* signal = nullptr);
    // Kills the runner's group, reaps it, joins the log thread. Idempotent.
    void end();
    std::string logTail() const;

private:
    struct Log;
    pid_t m_pid = -1;
    int m_status = 0;
    bool m_reaped = false;
    std::shared_ptr<Log> m_log;
};

}  // namespace reach
