#include "core/verify/workerserver.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/base/jsoninteger.h"
#include "core/verify/queueclock.h"

namespace reach {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    void reset() {
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
};

// One frame: a 4-byte big-endian length and the JSON, with `nfds` descriptors attached to the
// first bytes (SCM_RIGHTS).
bool sendFrame(int sock, const std::string& body, const int* fds, size_t nfds, std::string* why) {
    std::string msg(4, '\0');
    const uint32_t n = uint32_t(body.size());
    for (int i = 0; i < 4; ++i)
        msg[size_t(i)] = char((n >> (24 - 8 * i)) & 0xff);
    msg += body;
    iovec iov{msg.data(), msg.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (nfds > 0) {
        mh.msg_control = control;
        mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        cmsghdr* c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        std::memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    const ssize_t sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
    if (sent < 0) {
        *why = std::string("sendmsg: ") + std::strerror(errno);
        return false;
    }
    size_t done = size_t(sent);
    while (done < msg.size()) {
        const ssize_t k = send(sock, msg.data() + done, msg.size() - done, MSG_NOSIGNAL);
        if (k <= 0) {
            *why = std::string("send: ") + std::strerror(errno);
            return false;
        }
        done += size_t(k);
    }
    return true;
}

// One line from the server; false on EOF or after `seconds`.
bool readLine(int sock, std::string& pending, std::string& line, double seconds) {
    const auto t0 = Clock::now();
    while (true) {
        const size_t nl = pending.find('\n');
        if (nl != std::string::npos) {
            line = pending.substr(0, nl);
            pending.erase(0, nl + 1);
            return true;
        }
        const int left = int((seconds - since(t0)) * 1000);
        if (left <= 0)
            return false;
        pollfd p{sock, POLLIN, 0};
        if (poll(&p, 1, left) <= 0)
            continue;
        char buf[4096];
        const ssize_t k = read(sock, buf, sizeof buf);
        if (k <= 0)
            return false;
        pending.append(buf, size_t(k));
    }
}

// A descriptor handed to a child is numbered above stdin, stdout and stderr, which the child's
// dup2s would replace.
int aboveStdio(int fd) {
    if (fd < 0 || fd > 2)
        return fd;
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return moved;
}

bool isTrue(const nlohmann::json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

// reach-verify's connection (adoptWorkerServerConnection), used by one worker at a time.
std::atomic<int> g_adopted{-1};
std::mutex g_adoptedUse;

// One job's request: its arguments, its environment (the caller's with extraEnv applied, as
// runChild gives a child) and this process's working folder.
nlohmann::json jobRequest(const std::vector<std::string>& workerArgs,
                          const std::vector<std::string>& extraEnv) {
    nlohmann::json env = nlohmann::json::object();
    for (const std::string& e : childEnvironment(extraEnv)) {
        const size_t eq = e.find('=');
        if (eq != std::string::npos)
            env[e.substr(0, eq)] = e.substr(eq + 1);
    }
    char cwd[PATH_MAX];
    return {{"argv", workerArgs}, {"env", env}, {"cwd", getcwd(cwd, sizeof cwd) ? cwd : ""}};
}

// How following a started job ended: its end reported, the server gone, or given up on.
struct JobWatch {
    bool ended = false, serverGone = false, gaveUp = false;
};

// The job's end, from the server's whole lines in `pending`: {"exit": n} or {"signal": n}.
void takeReports(std::string& pending, ChildResult& r, bool& ended) {
    size_t nl;
    while (!ended && (nl = pending.find('\n')) != std::string::npos) {
        const auto m = nlohmann::json::parse(pending.substr(0, nl), nullptr, false);
        pending.erase(0, nl + 1);
        if (m.is_object() && m.contains("exit")) {
            r.exitCode = jsonInteger<int>(m["exit"]).value_or(1);
            ended = true;
        } else if (m.is_object() && m.contains("signal")) {
            // A malformed report from the server is a failed job, not a signal.
            if (auto sig = jsonInteger<int>(m["signal"]))
                r.termSignal = *sig;
            else
                r.exitCode = 1;
            ended = true;
        }
    }
}

// Reads the started job's stdout and stderr into r and the server's reports from `connection`
// until the job's end is reported and its pipes close (or drained a moment after the report),
// asking the server to kill it past its timeout or queue limit.
void followJob(int connection, int outRead, int errRead, Clock::time_point t0,
               double timeoutSeconds, const ChildQueue& queue, std::string& pending, ChildResult& r,
               JobWatch& w) {
    pollfd p[3] = {{outRead, POLLIN, 0}, {errRead, POLLIN, 0}, {connection, POLLIN, 0}};
    std::optional<Clock::time_point> endedAt;
    double killAsked = 0;  // when the server was asked to kill the job
    std::string reason;
    char buf[65536];
    while (p[0].fd >= 0 || p[1].fd >= 0 || !(w.ended || w.serverGone)) {
        if (w.ended && !endedAt)
            endedAt = Clock::now();
        // The server reports a job once everything it started is gone, so the pipes close with
        // it; this bound is for a server that did not keep its word.
        if (endedAt && since(*endedAt) > kDrainAfterExitSeconds)
            break;
        // The job's own work is timed; its waits for the GPU are bounded apart (queueclock.h).
        const double elapsed = since(t0);
        const bool killing = r.timedOut || r.gpuBusy;
        if (!killing)
            r.queueSeconds = queue.file ? queue.file->queuedSeconds(elapsed) : 0;
        const bool busy = !killing && r.queueSeconds > queue.limitSeconds;
        const double limit =
            killing ? killAsked + kWorkerServerKillGraceSeconds : timeoutSeconds + r.queueSeconds;
        const int left = busy ? 0 : int((limit - elapsed) * 1000);
        if (left <= 0) {
            if (killing) {
                w.gaveUp = true;  // asked to kill and still not reported: give the connection up
                break;
            }
            (busy ? r.gpuBusy : r.timedOut) = true;
            killAsked = elapsed;
            // The server kills the job and whatever it started; this process signals nothing.
            if (!sendFrame(connection, R"({"kill":true})", nullptr, 0, &reason)) {
                w.gaveUp = true;
                break;
            }
            continue;
        }
        const int n = poll(p, 3, std::min(left, w.ended ? 50 : 200));
        if (n < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 3; ++k) {
            if (p[k].fd < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = read(p[k].fd, buf, sizeof buf);
            if (got > 0 && k < 2) {
                appendChildOutput(k == 0 ? r.out : r.err, buf, size_t(got), k == 0);
            } else if (got > 0) {
                pending.append(buf, size_t(got));
                takeReports(pending, r, w.ended);
            } else {
                p[k].fd = -1;  // closed by the caller's Fd owners
                if (k == 2 && !w.ended)
                    w.serverGone = true;
            }
        }
    }
}

}  // namespace

std::optional<ChildResult> runInWorkerServer(int connection,
                                             const std::vector<std::string>& workerArgs,
                                             double timeoutSeconds,
                                             const std::vector<std::string>& extraEnvIn,
                                             std::string* why, bool* connectionUsable,
                                             const ChildQueue& queue) {
    std::vector<std::string> extraEnv = extraEnvIn;
    if (queue.file && !queue.file->path().empty())
        extraEnv.push_back("REACH_QUEUE_FILE=" + queue.file->path());
    if (connectionUsable)
        *connectionUsable = true;
    auto refuse = [&](const std::string& r) -> std::optional<ChildResult> {
        if (why)
            *why = r;
        if (connectionUsable)
            *connectionUsable = false;
        return std::nullopt;
    };
    if (connection < 0)
        return refuse("no worker server");
    const nlohmann::json req = jobRequest(workerArgs, extraEnv);
    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    if (pipe2(outPipe, O_CLOEXEC) || pipe2(errPipe, O_CLOEXEC)) {
        for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
            if (fd >= 0)
                close(fd);
        return refuse(std::string("pipe: ") + std::strerror(errno));
    }
    Fd outRead(outPipe[0]), outWrite(outPipe[1]), errRead(errPipe[0]), errWrite(errPipe[1]);
    Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
    const auto t0 = Clock::now();
    const int fds[3] = {devnull.fd, outWrite.fd, errWrite.fd};
    const std::string body = req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string reason;
    if (!sendFrame(connection, body, fds, 3, &reason))
        return refuse("the worker server's connection is closed (" + reason + ")");
    // Only the job holds the write ends now: EOF on the pipes is the job (and its children) gone.
    outWrite.reset();
    errWrite.reset();
    devnull.reset();

    std::string pending, line;
    if (!readLine(connection, pending, line, 30))
        return refuse("the worker server did not answer");
    const nlohmann::json first = nlohmann::json::parse(line, nullptr, false);
    // Only {"started": true} starts a job: whatever else a server says (a pid to signal, say) is
    // not the protocol, and the job is left to the server (closing the connection kills it).
    if (!isTrue(first, "started"))
        return refuse(
            "the worker server refused the job: " +
            (first.is_object() && first.contains("refused") && first["refused"].is_string()
                 ? first["refused"].get<std::string>()
                 : line));

    ChildResult r;
    r.started = true;
    JobWatch w;
    // The report may come in the same read as {"started": true} (a job that ends at once).
    takeReports(pending, r, w.ended);
    followJob(connection, outRead.fd, errRead.fd, t0, timeoutSeconds, queue, pending, r, w);
    if (!w.ended) {
        // The job's end was never reported: the connection is given up (its close makes the
        // server kill the job, if the server is still there).
        r.termSignal = SIGKILL;
        r.error = w.serverGone ? "the worker server went away during the job"
                  : w.gaveUp   ? "the worker server did not report the job it was asked to kill"
                               : "the worker server's connection failed";
        if (connectionUsable)
            *connectionUsable = false;
    }
    r.seconds = since(t0);
    return r;
}

void adoptWorkerServerConnection() {
    if (std::getenv("REACH_KB_SERVER")) {
        std::cerr << "reach-verify: $REACH_KB_SERVER is ignored: a worker server is reached only "
                     "through a connection its owner passes ($"
                  << kWorkerServerFdVariable
                  << "), never through a socket path, which any process of the user's could take "
                     "over (docs/kernelbench.md, \"Warm start\")\n";
        unsetenv("REACH_KB_SERVER");
    }
    const char* value = std::getenv(kWorkerServerFdVariable);
    if (!value)
        return;
    const std::string text = value;
    unsetenv(kWorkerServerFdVariable);  // no worker sees it
    auto unusable = [&](const std::string& why) {
        std::cerr << "reach-verify: $" << kWorkerServerFdVariable << "=" << text << ": " << why
                  << "; the workers start directly\n";
    };
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return unusable("not a descriptor number");
    const int fd = std::atoi(text.c_str());
    if (fd <= 2)
        return unusable("a standard stream, not a connection");
    struct stat st {};
    if (fstat(fd, &st) != 0)
        return unusable(std::string("not open (") + std::strerror(errno) + ")");
    // Whatever it is, no worker inherits it.
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    int domain = 0, type = 0;
    socklen_t len = sizeof domain;
    if (!S_ISSOCK(st.st_mode) || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
        domain != AF_UNIX)
        return unusable("not a Unix socket");
    len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return unusable("not a stream socket");
    g_adopted = fd;
}

bool hasWorkerServerConnection() {
    return g_adopted >= 0;
}

std::optional<ChildResult> runInAdoptedWorkerServer(const std::vector<std::string>& workerArgs,
                                                    double timeoutSeconds,
                                                    const std::vector<std::string>& extraEnv,
                                                    std::string* why, const ChildQueue& queue) {
    std::unique_lock lock(g_adoptedUse, std::try_to_lock);
    if (!lock.owns_lock()) {
        // A connection carries one job at a time; a second worker at once starts by itself.
        if (why)
            *why = "the worker server's connection is busy with another worker";
        return std::nullopt;
    }
    const int fd = g_adopted;
    if (fd < 0) {
        if (why)
            *why = "no worker server";
        return std::nullopt;
    }
    bool usable = true;
    auto r = runInWorkerServer(fd, workerArgs, timeoutSeconds, extraEnv, why, &usable, queue);
    if (!usable) {
        g_adopted = -1;
        close(fd);
    }
    return r;
}

std::unique_ptr<WorkerServer> WorkerServer::start(const std::string& python,
                                                  const std::string& serverScript,
                                                  double waitSeconds, std::string* error) {
    auto fail = [&](const std::string& e) -> std::unique_ptr<WorkerServer> {
        if (error)
            *error = e;
        return nullptr;
    };
    // The control line: a packet socket, so that each connection the owner sends is one message.
    int sv[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return fail(std::string("socketpair: ") + std::strerror(errno));
    const int mine = sv[0];
    const int theirs = aboveStdio(sv[1]);
    if (theirs < 0) {
        close(mine);
        return fail(std::string("fcntl: ") + std::strerror(errno));
    }
    const std::vector<std::string> argv = {python, serverScript, "--control-fd",
                                           std::to_string(theirs)};
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        const int e = errno;
        close(mine);
        close(theirs);
        return fail(std::string("fork: ") + std::strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        // Its own output is not the owner's: the one line it prints and any error go nowhere
        // that could block (a test runner waiting for a pipe to close, say).
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        // The control line and nothing else of the owner's (a descriptor the owner left
        // inheritable would otherwise be open in every job).
#ifdef SYS_close_range
        const bool closed =
            (theirs == 3 || syscall(SYS_close_range, 3u, unsigned(theirs) - 1, 0u) == 0) &&
            syscall(SYS_close_range, unsigned(theirs) + 1, ~0u, 0u) == 0;
#else
        const bool closed = false;
#endif
        if (!closed) {
            const long max = std::min(sysconf(_SC_OPEN_MAX), 65536L);
            for (int fd = 3; fd < max; ++fd)
                if (fd != theirs)
                    close(fd);
        }
        fcntl(theirs, F_SETFD, 0);
        execvp(args[0], args.data());
        _exit(127);
    }
    setpgid(pid, pid);
    close(theirs);
    auto server = std::unique_ptr<WorkerServer>(new WorkerServer(pid, mine));
    if (waitSeconds <= 0)
        return server;
    std::lock_guard lock(server->m_mutex);
    server->readControl(waitSeconds);
    if (server->m_ready)
        return server;
    if (server->m_gone) {
        int status = 0;
        if (waitpid(pid, &status, 0) == pid) {
            server->m_pid = -1;
            return fail(python + ": the worker server exited before it was ready (" +
                        (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                           : "signal " + std::to_string(WTERMSIG(status))) +
                        "; no PyTorch?)");
        }
    }
    return fail(serverScript + ": the worker server was not ready within " +
                std::to_string(int(waitSeconds)) + " s");
}

void WorkerServer::readControl(double seconds) {
    const auto t0 = Clock::now();
    while (!m_gone) {
        char buf[512];
        const ssize_t n = recv(m_control, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            const auto m = nlohmann::json::parse(std::string(buf, size_t(n)), nullptr, false);
            if (isTrue(m, "ready"))
                m_ready = true;
            continue;
        }
        if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            m_gone = true;  // the server closed its end: it has exited
            break;
        }
        const int left = int((seconds - since(t0)) * 1000);
        if (m_ready || left <= 0)
            break;
        pollfd p{m_control, POLLIN, 0};
        poll(&p, 1, left);
    }
}

bool WorkerServer::ready() {
    std::lock_guard lock(m_mutex);
    readControl(0);
    return m_ready;
}

bool WorkerServer::gone() {
    std::lock_guard lock(m_mutex);
    readControl(0);
    return m_gone;
}

int WorkerServer::connect(std::string* why) {
    auto fail = [&](const std::string& w) {
        if (why)
            *why = w;
        return -1;
    };
    std::lock_guard lock(m_mutex);
    readControl(0);
    if (m_gone)
        return fail("the worker server has exited");
    if (!m_ready)
        return fail("the worker server is not ready yet");
    int sv[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return fail(std::string("socketpair: ") + std::strerror(errno));
    const int mine = aboveStdio(sv[0]);
    Fd theirs(sv[1]);
    if (mine < 0)
        return fail(std::string("fcntl: ") + std::strerror(errno));
    char tag = 'c';
    iovec iov{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &theirs.fd, sizeof(int));
    // Never blocks: a server too busy to take it means this verifier starts its workers itself.
    if (sendmsg(m_control, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
        const int e = errno;
        close(mine);
        if (e == EPIPE || e == ECONNRESET)
            m_gone = true;
        return fail(std::string("the worker server's control line: ") + std::strerror(e));
    }
    return mine;
}

std::shared_ptr<WorkerServer> sharedWorkerServer(const std::string& python,
                                                 const std::string& serverScript) {
    static std::mutex mutex;
    static std::shared_ptr<WorkerServer> server;
    static bool failed = false;
    std::lock_guard lock(mutex);
    if (server && server->gone()) {
        // One that was ready and left (idle, a new PyTorch, killed) is started again; one that
        // never became ready (no PyTorch in that Python) is not.
        failed = !server->ready();
        server.reset();
    }
    if (!server && !failed) {
        std::error_code ec;
        if (!serverScript.empty() && std::filesystem::is_regular_file(serverScript, ec))
            server = WorkerServer::start(python, serverScript, 0);
        failed = !server;
    }
    return server;
}

WorkerServer::~WorkerServer() {
    // Closing the control line is how the owner says it is gone: the server ends its jobs (each
    // keeper kills what its job started) and exits. SIGTERM, then SIGKILL, only for a server
    // that does not; a keeper whose server is killed still cleans up (its PR_SET_PDEATHSIG).
    if (m_control >= 0)
        close(m_control);
    if (m_pid <= 0)
        return;
    auto exited = [&](double seconds) {
        const auto t0 = Clock::now();
        do {
            if (waitpid(m_pid, nullptr, WNOHANG) == m_pid)
                return true;
            usleep(10000);
        } while (since(t0) < seconds);
        return false;
    };
    if (exited(8))
        return;
    kill(m_pid, SIGTERM);
    if (exited(2))
        return;
    kill(m_pid, SIGKILL);
    waitpid(m_pid, nullptr, 0);
}

}  // namespace reach
