#pragma once

#include <stop_token>
#include <string>
#include <vector>

namespace reach {

// Result of running one child process to completion (or to its timeout).
struct ChildResult {
    bool started = false;     // false when fork/exec failed (error says why)
    bool timedOut = false;    // killed (SIGKILL, whole process group) after the timeout
    bool cancelled = false;   // killed (SIGKILL, whole group) because stop was requested
    bool gpuBusy = false;     // killed after waiting for its GPU past the queue limit
    double queueSeconds = 0;  // of `seconds`, waiting for the GPU (queueclock.h)
    int exitCode = -1;        // when it exited normally
    int termSignal = 0;       // when a signal ended it
    std::string out;          // stdout, whole
    std::string err;          // stderr, whole
    std::string error;
    double seconds = 0;
};

class QueueFile;

// A job's waits for its GPU (core/verify/queueclock.h): the child gets $REACH_QUEUE_FILE, its
// timeout counts only its own work, and past `limitSeconds` of waiting it is killed (gpuBusy).
struct ChildQueue {
    const QueueFile* file = nullptr;  // none: the timeout counts everything, waits included
    double limitSeconds = 600;
};

// Runs argv[0] with arguments in its own process group, capturing stdout and stderr, and kills
// the group after `timeoutSeconds` (or as soon as `stop` is requested). The caller never dies
// with the child: a crash, an abort or a hang in the child comes back as a value. POSIX
// fork/exec/poll; no Qt.
//
// extraEnv holds "NAME=value" entries that replace (or add to) the caller's environment; an
// entry "NAME" without '=' removes the variable. Safe to call from several threads at once (a
// batch runs one per worker): the pipes are close-on-exec, so a child never holds a sibling's
// pipe open, and everything the child needs is built before fork. The child is killed when the
// calling thread dies (Linux PR_SET_PDEATHSIG), so a killed batch leaves no verifier running.
//
// inheritFds: descriptors the child inherits (at the same numbers, which must be above 2), e.g.
// a worker server's connection for one reach-verify (workerserver.h). They stay close-on-exec
// in the caller, so no other child gets them; runChild takes them over and closes them here
// once the child has started (or could not start).
ChildResult runChild(const std::vector<std::string>& argv, double timeoutSeconds,
                     const std::vector<std::string>& extraEnv = {}, std::stop_token stop = {},
                     const std::vector<int>& inheritFds = {}, const ChildQueue& queue = {});

// How a child's output is kept (runChild and the worker server's client): stdout, which
// carries one JSON document, up to 64 MiB; stderr, a log, its last 1 MiB. A child that prints
// without end costs bounded memory.
void appendChildOutput(std::string& into, const char* data, size_t n, bool isStdout);
// Once a child has exited, what it already wrote is read for this long; then whatever it left
// holding its pipes (a forked helper) is killed with its process group, instead of the reader
// waiting for EOF until the timeout.
inline constexpr double kDrainAfterExitSeconds = 0.5;

// The environment a child of runChild gets: the caller's, with extraEnv applied as above.
std::vector<std::string> childEnvironment(const std::vector<std::string>& extraEnv);

}  // namespace reach
