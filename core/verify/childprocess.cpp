#include "core/verify/childprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "core/verify/queueclock.h"

extern char** environ;

namespace reach {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr size_t kMaxOut = size_t(64) << 20;
constexpr size_t kKeepErr = size_t(1) << 20;

void closeAll(std::initializer_list<int> fds) {
    for (int fd : fds)
        if (fd >= 0)
            close(fd);
}

}  // namespace

void appendChildOutput(std::string& into, const char* data, size_t n, bool isStdout) {
    if (isStdout) {
        // Past the limit the document is cut, and the reader finds no JSON in it.
        into.append(data, std::min(n, kMaxOut - std::min(kMaxOut, into.size())));
        return;
    }
    into.append(data, n);
    if (into.size() > 2 * kKeepErr)
        into.erase(0, into.size() - kKeepErr);
}

std::vector<std::string> childEnvironment(const std::vector<std::string>& extraEnv) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        env.emplace_back(*e);
    for (const std::string& entry : extraEnv) {
        const size_t eq = entry.find('=');
        const std::string name = entry.substr(0, eq);
        std::erase_if(env, [&](const std::string& v) {
            return v.size() > name.size() && v.compare(0, name.size(), name) == 0 &&
                   v[name.size()] == '=';
        });
        if (eq != std::string::npos)
            env.push_back(entry);
    }
    return env;
}

namespace {

// Kills the child's whole group, once: the first reason found is the one recorded in `why`.
void killGroupOnce(pid_t pid, bool& why) {
    if (!why) {
        why = true;
        kill(-pid, SIGKILL);
    }
}

// What execvpe is given, as C arrays pointing into the caller's argv and into `envStrings`.
struct ExecArgs {
    std::vector<char*> args;
    std::vector<std::string> envStrings;
    std::vector<char*> envp;
};

// Built before fork: between fork and exec only async-signal-safe calls are allowed when
// other threads (other workers of a batch) may hold the allocator's locks. Filled in place:
// envp points into envStrings, which must not move after.
void buildExecArgs(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv,
                   ExecArgs& exec) {
    for (const auto& a : argv)
        exec.args.push_back(const_cast<char*>(a.c_str()));
    exec.args.push_back(nullptr);
    exec.envStrings = childEnvironment(extraEnv);
    for (const auto& e : exec.envStrings)
        exec.envp.push_back(const_cast<char*>(e.c_str()));
    exec.envp.push_back(nullptr);
}

// The child's side of fork, up to exec: async-signal-safe calls only (see buildExecArgs). An
// exec that fails writes its errno into execWrite for the parent.
[[noreturn]] void execChild(pid_t parent, int outWrite, int errWrite, int execWrite,
                            const std::vector<int>& inheritFds, ExecArgs& exec) {
    setpgid(0, 0);
    // Dies with the thread that started it (a killed batch must not leave GPU jobs behind).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    dup2(outWrite, 1);  // dup2 clears close-on-exec on 1 and 2
    dup2(errWrite, 2);
    // Nothing to read, and nothing to write into: a terminal on stdin is writable too.
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    // These and nothing else of the caller's: everything it opens is close-on-exec.
    for (int fd : inheritFds)
        fcntl(fd, F_SETFD, 0);
    execvpe(exec.args[0], exec.args.data(), exec.envp.data());
    int e = errno;
    (void)!write(execWrite, &e, sizeof e);
    _exit(127);
}

// The started child, as the parent follows it: its group is `pid`, and once reaped its wait
// status is in `status`.
struct Running {
    pid_t pid;
    std::chrono::steady_clock::time_point t0;
    int status = 0;
    bool reaped = false;
};

// Reads the child's stdout and stderr into r until both close, the child is stopped, its
// timeout or queue limit passes, or it has exited and the drain time is over. Closes both.
void readOutput(Running& child, int outRead, int errRead, double timeoutSeconds,
                const std::stop_token& stop, const ChildQueue& queue, ChildResult& r) {
    pollfd fds[2] = {{outRead, POLLIN, 0}, {errRead, POLLIN, 0}};
    int open = 2;
    char buf[65536];
    // Once the child itself has exited, a process it left behind may still hold the pipes open
    // (a forked helper, a candidate's daemon): what is already written is read for a moment
    // longer, then the group is killed, instead of waiting for EOF until the timeout.
    std::optional<std::chrono::steady_clock::time_point> exitedAt;
    while (open > 0) {
        if (stop.stop_requested()) {
            killGroupOnce(child.pid, r.cancelled);
            break;
        }
        // The job's own work: its waits for the GPU are not counted, but bounded apart.
        const double elapsed = since(child.t0);
        r.queueSeconds = queue.file ? queue.file->queuedSeconds(elapsed) : 0;
        if (r.queueSeconds > queue.limitSeconds) {
            killGroupOnce(child.pid, r.gpuBusy);
            break;
        }
        int left = int((timeoutSeconds - (elapsed - r.queueSeconds)) * 1000);
        if (left <= 0) {
            killGroupOnce(child.pid, r.timedOut);
            break;
        }
        if (!child.reaped && waitpid(child.pid, &child.status, WNOHANG) == child.pid) {
            child.reaped = true;
            exitedAt = std::chrono::steady_clock::now();
        }
        if (exitedAt && since(*exitedAt) > kDrainAfterExitSeconds)
            break;
        int n = poll(fds, 2, std::min(left, stop.stop_possible() || child.reaped ? 50 : 200));
        if (n < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(fds[k].fd, buf, sizeof buf);
            if (got > 0) {
                appendChildOutput(k == 0 ? r.out : r.err, buf, size_t(got), k == 0);
            } else {
                close(fds[k].fd);
                fds[k].fd = -1;
                --open;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0)
            close(f.fd);
}

// After the pipes close the child may still be tearing down a GPU context: wait for it, but
// never longer than the timeout allows. The first waits are short: a batch pays this delay
// once per job, so it must stay far below a millisecond when the child is already gone.
void reapChild(Running& child, double timeoutSeconds, const std::stop_token& stop, ChildResult& r) {
    useconds_t nap = 100;
    while (!child.reaped) {
        pid_t w = waitpid(child.pid, &child.status, WNOHANG);
        if (w == child.pid) {
            child.reaped = true;
            break;
        }
        if (w < 0 && errno != EINTR) {
            r.error = std::string("waitpid: ") + std::strerror(errno);
            break;
        }
        if (stop.stop_requested())
            killGroupOnce(child.pid, r.cancelled);
        if (since(child.t0) - r.queueSeconds > timeoutSeconds && !r.cancelled && !r.gpuBusy)
            killGroupOnce(child.pid, r.timedOut);
        usleep(nap);
        nap = std::min<useconds_t>(nap * 2, 10000);
    }
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, double timeoutSeconds,
                     const std::vector<std::string>& extraEnvIn, std::stop_token stop,
                     const std::vector<int>& inheritFds, const ChildQueue& queue) {
    std::vector<std::string> extraEnv = extraEnvIn;
    if (queue.file && !queue.file->path().empty())
        extraEnv.push_back("REACH_QUEUE_FILE=" + queue.file->path());
    ChildResult r;
    // The caller's copies go however this ends, and as soon as the child exists (it has its own
    // from fork on): a connection held here would outlive a child that died.
    struct Inherited {
        std::vector<int> fds;
        void closeNow() {
            for (int fd : fds)
                if (fd > 2)
                    close(fd);
            fds.clear();
        }
        ~Inherited() { closeNow(); }
    } inherited{inheritFds};
    if (argv.empty()) {
        r.error = "no program given";
        return r;
    }
    for (int fd : inheritFds) {
        if (fd <= 2) {
            r.error = "cannot pass descriptor " + std::to_string(fd) + ": a standard stream";
            return r;
        }
    }
    ExecArgs exec;
    buildExecArgs(argv, extraEnv, exec);

    // Close-on-exec: a child started by another thread at the same moment must not inherit
    // these ends, or this reader would wait for that sibling to exit before seeing EOF.
    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1}, execPipe[2] = {-1, -1};
    if (pipe2(outPipe, O_CLOEXEC) || pipe2(errPipe, O_CLOEXEC) || pipe2(execPipe, O_CLOEXEC)) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        closeAll({outPipe[0], outPipe[1], errPipe[0], errPipe[1], execPipe[0], execPipe[1]});
        return r;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        closeAll({outPipe[0], outPipe[1], errPipe[0], errPipe[1], execPipe[0], execPipe[1]});
        return r;
    }
    if (pid == 0)
        execChild(parent, outPipe[1], errPipe[1], execPipe[1], inheritFds, exec);
    setpgid(pid, pid);  // also here, so the kill below cannot race the child's own setpgid
    inherited.closeNow();
    close(outPipe[1]);
    close(errPipe[1]);
    close(execPipe[1]);
    int execErr = 0;
    if (read(execPipe[0], &execErr, sizeof execErr) == sizeof execErr) {
        r.error = "cannot run " + argv[0] + ": " + std::strerror(execErr);
    } else {
        r.started = true;
    }
    close(execPipe[0]);

    Running child{pid, t0};
    readOutput(child, outPipe[0], errPipe[0], timeoutSeconds, stop, queue, r);
    reapChild(child, timeoutSeconds, stop, r);
    // Whatever the job left in its group (nvcc, a candidate's helpers) ends with it.
    kill(-pid, SIGKILL);
    if (WIFEXITED(child.status))
        r.exitCode = WEXITSTATUS(child.status);
    if (WIFSIGNALED(child.status))
        r.termSignal = WTERMSIG(child.status);
    r.seconds = since(t0);
    return r;
}

}  // namespace reach
