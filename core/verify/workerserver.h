#pragma once

#include <sys/types.h>

#include <memory>
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
// reach-verify uses the server named by $REACH_KB_SERVER (a socket path) when it is set and the
// job is not sandboxed (a server outside bubblewrap would run the candidate outside it); an
// owner (the GUI, a batch) starts one with WorkerServer::start and sets the variable for the
// verifiers it runs.

// Runs the worker with `workerArgs` (what follows `python3 reach_kbworker.py`) in the server at
// `socketPath`: the job's stdout and stderr come back whole, a timeout kills the job's process
// group, as runChild does. The job gets the caller's environment with extraEnv applied
// (childEnvironment) and the caller's working directory. nullopt when no server answers there
// or it refuses the job (`why` says which): the caller then runs the worker itself.
std::optional<ChildResult> runInWorkerServer(const std::string& socketPath,
                                             const std::vector<std::string>& workerArgs,
                                             double timeoutSeconds,
                                             const std::vector<std::string>& extraEnv = {},
                                             std::string* why = nullptr);

// The process's shared server (the GUI's, a batch's), started at the first call and killed when
// the process exits; the server also leaves when it sees its parent gone. It is not waited for:
// a job that comes before it listens runs the worker itself. Returns the socket path for
// $REACH_KB_SERVER, or "" when no server can be started here. Thread-safe.
std::string sharedWorkerServer(const std::string& python, const std::string& serverScript);

// A server this process started and owns: it is killed when the owner is destroyed, and it
// leaves by itself when its parent process is gone, so it never outlives its owner.
class WorkerServer {
public:
    // Starts `python serverScript --socket socketPath` and waits up to waitSeconds until it
    // accepts connections (0: not at all). nullptr with `error` set when it cannot start (no
    // PyTorch in that Python, say); the caller goes on without it.
    static std::unique_ptr<WorkerServer> start(const std::string& python,
                                               const std::string& serverScript,
                                               const std::string& socketPath, double waitSeconds,
                                               std::string* error = nullptr);
    ~WorkerServer();
    WorkerServer(const WorkerServer&) = delete;
    WorkerServer& operator=(const WorkerServer&) = delete;

    const std::string& socketPath() const { return m_socket; }
    pid_t pid() const { return m_pid; }

private:
    WorkerServer(pid_t pid, std::string socket) : m_pid(pid), m_socket(std::move(socket)) {}
    pid_t m_pid;
    std::string m_socket;
};

}  // namespace reach
