#pragma once

#include <string>
#include <vector>

namespace reach {

// Result of running one child process to completion (or to its timeout).
struct ChildResult {
    bool started = false;   // false when fork/exec failed (error says why)
    bool timedOut = false;  // killed (SIGKILL, whole process group) after the timeout
    int exitCode = -1;      // when it exited normally
    int termSignal = 0;     // when a signal ended it
    std::string out;        // stdout, whole
    std::string err;        // stderr, whole
    std::string error;
    double seconds = 0;
};

// Runs argv[0] with arguments in its own process group, capturing stdout and stderr, and kills
// the group after `timeoutSeconds`. The caller never dies with the child: a crash, an abort or
// a hang in the child comes back as a value. POSIX fork/exec/poll; no Qt.
ChildResult runChild(const std::vector<std::string>& argv, double timeoutSeconds,
                     const std::vector<std::string>& extraEnv = {});

}  // namespace reach
