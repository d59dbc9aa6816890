#include "core/verify/workerserver.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/base/cachedir.h"
#include "core/base/jsoninteger.h"

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

int connectTo(const std::string& path, std::string* why) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) {
        *why = path + ": socket path too long";
        return -1;
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *why = std::string("socket: ") + std::strerror(errno);
        return -1;
    }
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        *why = path + ": no worker server (" + std::strerror(errno) + ")";
        close(fd);
        return -1;
    }
    return fd;
}

// The request: a 4-byte big-endian length and the JSON, with the child's stdin, stdout and
// stderr attached to the first bytes (SCM_RIGHTS).
bool sendRequest(int sock, const std::string& body, const int fds[3], std::string* why) {
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
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
    ssize_t sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
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

void killJob(pid_t pid) {
    if (pid > 0) {
        kill(-pid, SIGKILL);  // the job leads its own group (setsid): nvcc and ninja go with it
        kill(pid, SIGKILL);
    }
}

}  // namespace

std::optional<ChildResult> runInWorkerServer(const std::string& socketPath,
                                             const std::vector<std::string>& workerArgs,
                                             double timeoutSeconds,
                                             const std::vector<std::string>& extraEnv,
                                             std::string* why) {
    std::string reason;
    auto refuse = [&](const std::string& r) -> std::optional<ChildResult> {
        if (why)
            *why = r;
        return std::nullopt;
    };
    Fd sock(connectTo(socketPath, &reason));
    if (sock.fd < 0)
        return refuse(reason);

    nlohmann::json env = nlohmann::json::object();
    for (const std::string& e : childEnvironment(extraEnv)) {
        const size_t eq = e.find('=');
        if (eq != std::string::npos)
            env[e.substr(0, eq)] = e.substr(eq + 1);
    }
    char cwd[PATH_MAX];
    const nlohmann::json req = {
        {"argv", workerArgs}, {"env", env}, {"cwd", getcwd(cwd, sizeof cwd) ? cwd : ""}};
    int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    if (pipe2(outPipe, O_CLOEXEC) || pipe2(errPipe, O_CLOEXEC))
        return refuse(std::string("pipe: ") + std::strerror(errno));
    Fd outRead(outPipe[0]), outWrite(outPipe[1]), errRead(errPipe[0]), errWrite(errPipe[1]);
    Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
    const auto t0 = Clock::now();
    const int fds[3] = {devnull.fd, outWrite.fd, errWrite.fd};
    const std::string body = req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (!sendRequest(sock.fd, body, fds, &reason))
        return refuse(reason);
    // Only the job holds the write ends now: EOF on the pipes is the job (and its children) gone.
    outWrite.reset();
    errWrite.reset();
    devnull.reset();

    std::string pending, line;
    if (!readLine(sock.fd, pending, line, 30))
        return refuse(socketPath + ": the worker server did not answer");
    const nlohmann::json first = nlohmann::json::parse(line, nullptr, false);
    if (!first.is_object() || !first.contains("pid"))
        return refuse(socketPath + ": the worker server refused the job: " +
                      (first.is_object() ? first.value("refused", line) : line));
    const pid_t pid = first["pid"].get<pid_t>();

    ChildResult r;
    r.started = true;
    pollfd p[3] = {{outRead.fd, POLLIN, 0}, {errRead.fd, POLLIN, 0}, {sock.fd, POLLIN, 0}};
    bool ended = false, serverGone = false;
    std::optional<Clock::time_point> endedAt;
    char buf[65536];
    while (p[0].fd >= 0 || p[1].fd >= 0 || !(ended || serverGone)) {
        if (ended && !endedAt)
            endedAt = Clock::now();
        if (endedAt && since(*endedAt) > kDrainAfterExitSeconds) {
            killJob(pid);  // what the job left holding its pipes goes with its group
            break;
        }
        const double limit = timeoutSeconds + (r.timedOut ? 10 : 0);
        const int left = int((limit - since(t0)) * 1000);
        if (left <= 0) {
            if (r.timedOut)
                break;  // killed and still not reported: give up on it
            r.timedOut = true;
            killJob(pid);
            continue;
        }
        const int n = poll(p, 3, std::min(left, ended ? 50 : 200));
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
                size_t nl;
                while ((nl = pending.find('\n')) != std::string::npos) {
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
            } else {
                p[k].fd = -1;  // closed by the Fd owners below
                if (k == 2 && !ended)
                    serverGone = true;
            }
        }
    }
    if (serverGone && !ended) {
        killJob(pid);
        r.termSignal = SIGKILL;
        r.error = "the worker server went away during the job";
    }
    r.seconds = since(t0);
    return r;
}

std::unique_ptr<WorkerServer> WorkerServer::start(const std::string& python,
                                                  const std::string& serverScript,
                                                  const std::string& socketPath, double waitSeconds,
                                                  std::string* error) {
    auto fail = [&](const std::string& e) -> std::unique_ptr<WorkerServer> {
        if (error)
            *error = e;
        return nullptr;
    };
    const std::vector<std::string> argv = {python,     serverScript, "--socket",
                                           socketPath, "--owner",    std::to_string(getpid())};
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0)
        return fail(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        if (getppid() != parent)
            _exit(127);
        // Its own output is not the owner's: the one line it prints and any error go nowhere
        // that could block (a test runner waiting for a pipe to close, say).
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        execvp(args[0], args.data());
        _exit(127);
    }
    setpgid(pid, pid);
    auto server = std::unique_ptr<WorkerServer>(new WorkerServer(pid, socketPath));
    if (waitSeconds <= 0)
        return server;
    const auto t0 = Clock::now();
    std::string why;
    while (since(t0) < waitSeconds) {
        const int fd = connectTo(socketPath, &why);
        if (fd >= 0) {
            close(fd);  // the server sees a client that sent nothing: a refused request
            return server;
        }
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            server->m_pid = -1;
            return fail(python + ": the worker server exited before listening (" +
                        (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                           : "signal " + std::to_string(WTERMSIG(status))) +
                        "; no PyTorch?)");
        }
        usleep(50000);
    }
    return fail(socketPath + ": the worker server did not listen within " +
                std::to_string(int(waitSeconds)) + " s");
}

std::string sharedWorkerServer(const std::string& python, const std::string& serverScript) {
    static std::mutex mutex;
    static std::unique_ptr<WorkerServer> server;
    static bool tried = false;
    std::lock_guard lock(mutex);
    if (!tried) {
        tried = true;
        std::error_code ec;
        if (!serverScript.empty() && std::filesystem::is_regular_file(serverScript, ec)) {
            // In the private cache folder: only this user may connect (a job runs with the
            // server's rights). A path too long for a socket means no server, not an error.
            try {
                const std::string socket = defaultCacheDir("kernelbench") + "/kbserver-" +
                                           std::to_string(getpid()) + ".sock";
                if (socket.size() < sizeof(sockaddr_un{}.sun_path))
                    server = WorkerServer::start(python, serverScript, socket, 0);
            } catch (const std::exception&) {
                // No private cache folder: every job starts the worker itself, as without a server.
            }
        }
    }
    return server ? server->socketPath() : std::string();
}

WorkerServer::~WorkerServer() {
    if (m_pid <= 0)
        return;
    kill(-m_pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {
        int status = 0;
        if (waitpid(m_pid, &status, WNOHANG) == m_pid)
            return;
        usleep(20000);
    }
    kill(-m_pid, SIGKILL);
    waitpid(m_pid, nullptr, 0);
}

}  // namespace reach
