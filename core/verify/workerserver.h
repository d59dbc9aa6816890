#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/verify/childprocess.h"

namespace reach {

// A warm start for the KernelBench-format worker (resources/python/reach_kbserver.py): a Python
// process that has imported PyTorch once and forks a fresh child for every job, so a job no
// longer pays `import torch` (2.6-4.4 s on the H200 machine, twice per verify). Each job is
// still its own process, started after the server's imports and nothing else: no CUDA context,
// no candidate, no problem of an earlier job is in it.
//
// Who talks to whom (issue 36: a server known by a socket path was taken over by a process a
// candidate left behind, which answered later jobs with forged passing documents). The owner
// (the GUI, a batch) starts the server with WorkerServer::start over a socket pair it made, the
// control line; for each reach-verify it runs it asks for a connection (WorkerServer::connect),
// a socket pair of which the server gets one end over the control line and that reach-verify
// the other, inherited and named by $REACH_KB_SERVER_FD. No path names the server, no process
// but the owner can make it a connection, and nothing a job can reach names it. The client
// signals nothing: it asks the server to kill its job, and the server's keeper of that job
// kills whatever the job started (docs/kernelbench.md, "Warm start").

// The descriptor the owner passed to a reach-verify child, and the variable that names it.
inline constexpr const char* kWorkerServerFdVariable = "REACH_KB_SERVER_FD";

// Runs the worker with `workerArgs` (what follows `python3 reach_kbworker.py`) in the server at
// the other end of `connection`, a connection from WorkerServer::connect: the job's stdout and
// stderr come back whole through pipes made here. The job gets the caller's environment with
// extraEnv applied (childEnvironment) and the caller's working directory. At the timeout the
// client asks the server to kill the job (a framed {"kill": true}), waits a few seconds for its
// report, and otherwise gives the connection up (closing it kills the job too); it never
// signals a process itself. nullopt when the server refuses the job or does not answer (`why`
// says which): the caller then runs the worker itself. `connectionUsable`, when given, is set to
// whether the connection can carry a next job (false once it was refused, broken or given up).
std::optional<ChildResult> runInWorkerServer(
    int connection, const std::vector<std::string>& workerArgs, double timeoutSeconds,
    const std::vector<std::string>& extraEnv = {}, std::string* why = nullptr,
    bool* connectionUsable = nullptr, const ChildQueue& queue = {});
// How long a client waits for the server's report after it asked for its job to be killed.
inline constexpr double kWorkerServerKillGraceSeconds = 5.0;

// reach-verify's side. Takes the connection its owner passed ($REACH_KB_SERVER_FD), before
// anything else can start a process: the variable is removed (no worker sees it), the
// descriptor must be an AF_UNIX stream socket other than stdin, stdout and stderr, and it is
// made close-on-exec (no worker inherits it). A variable that names no such descriptor means
// no server, with a note on stderr; $REACH_KB_SERVER (the socket path of earlier versions) is
// ignored, with a note on stderr saying why. Call once, first thing in main.
void adoptWorkerServerConnection();
// Whether this process holds a usable connection (adopted, not yet refused or broken).
bool hasWorkerServerConnection();
// runInWorkerServer on the adopted connection, for one worker at a time: nullopt with `why` set
// when there is none, another worker of this process is using it, or the server refused the
// job or broke off (the connection is then closed and no later worker tries it).
std::optional<ChildResult> runInAdoptedWorkerServer(const std::vector<std::string>& workerArgs,
                                                    double timeoutSeconds,
                                                    const std::vector<std::string>& extraEnv,
                                                    std::string* why, const ChildQueue& queue = {});

// A server this process started and owns: it leaves when its owner closes the control line
// (the owner destroyed, or its process gone), so it never outlives its owner.
class WorkerServer {
public:
    // Starts `python serverScript --control-fd N` with one end of the control line as N (and no
    // other descriptor but /dev/null as its standard streams), and waits up to waitSeconds until
    // it says it is ready (0: not at all). nullptr with `error` set when it cannot start (no
    // PyTorch in that Python, say); the caller goes on without it.
    static std::unique_ptr<WorkerServer> start(const std::string& python,
                                               const std::string& serverScript, double waitSeconds,
                                               std::string* error = nullptr);
    ~WorkerServer();
    WorkerServer(const WorkerServer&) = delete;
    WorkerServer& operator=(const WorkerServer&) = delete;

    // A new connection for one reach-verify: this process's end of a fresh socket pair, whose
    // other end went to the server. Close-on-exec and numbered above 2: pass it to exactly one
    // child (runChild's inheritFds, or cleared close-on-exec in that child only) together with
    // $REACH_KB_SERVER_FD=<n>, then close it here. -1 (with `why`) when the server is not ready
    // yet (the verifier then runs its workers itself, as without a server) or is gone.
    // Thread-safe.
    int connect(std::string* why = nullptr);
    // Whether the server has said it is ready (once said, it stays said), and whether it is gone
    // (its control line closed: it exited, idle or stale, or was killed). Thread-safe.
    bool ready();
    bool gone();
    pid_t pid() const { return m_pid; }

private:
    WorkerServer(pid_t pid, int control) : m_pid(pid), m_control(control) {}
    // Reads what the server said on the control line, waiting up to `seconds`; m_mutex held.
    void readControl(double seconds);
    std::mutex m_mutex;
    pid_t m_pid;
    int m_control;
    bool m_ready = false;
    bool m_gone = false;
};

// The process's shared server (the GUI's, a batch's), started at the first call and ended when
// the process exits; started again when one that was ready has gone (idle, or its PyTorch
// replaced). It is not waited for: a job that comes before it is ready runs the worker itself.
// nullptr when no server can be started here. Thread-safe.
std::shared_ptr<WorkerServer> sharedWorkerServer(const std::string& python,
                                                 const std::string& serverScript);

}  // namespace reach
