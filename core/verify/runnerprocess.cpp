#include "core/verify/runnerprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace reach {

struct RunnerProcess::Log {
    std::mutex mutex;
    std::string text;
    std::thread thread;
};

RunnerProcess::RunnerProcess(const std::vector<std::string>& argv, MessageChannel runnerEnd) {
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const int channelFd = runnerEnd.fd();
    const pid_t parent = ::getpid();
    m_pid = ::fork();
    if (m_pid < 0) {
        ::close(out[0]);
        ::close(out[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (m_pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(127);
        // Each source moves above the targets first (close-on-exec, so the copies die at exec):
        // a source already at 0-3 (a controller started with stdin closed, a channel end at 3)
        // would otherwise be overwritten, or dup2(3, 3) would keep its close-on-exec flag.
        const int null = ::fcntl(::open("/dev/null", O_RDONLY | O_CLOEXEC), F_DUPFD_CLOEXEC, 10);
        const int logFd = ::fcntl(out[1], F_DUPFD_CLOEXEC, 10);
        const int channel = ::fcntl(channelFd, F_DUPFD_CLOEXEC, 10);
        if (null < 0 || logFd < 0 || channel < 0 || ::dup2(null, 0) < 0 || ::dup2(logFd, 1) < 0 ||
            ::dup2(logFd, 2) < 0 || ::dup2(channel, 3) < 0)
            ::_exit(127);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::setpgid(m_pid, m_pid);
    ::close(out[1]);
    m_log = std::make_shared<Log>();
    m_log->thread = std::thread([log = m_log, fd = out[0]] {
        char buf[65536];
        while (true) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            std::lock_guard lk(log->mutex);
            log->text.append(buf, size_t(n));
            if (log->text.size() > 2 * kLogTail)
                log->text.erase(0, log->text.size() - kLogTail);
        }
        ::close(fd);
    });
}

RunnerProcess::~RunnerProcess() {
    end();
}

bool RunnerProcess::exited(int* signal) {
    if (!m_reaped && m_pid > 0 && ::waitpid(m_pid, &m_status, WNOHANG) == m_pid)
        m_reaped = true;
    if (m_reaped && signal)
        *signal = WIFSIGNALED(m_status) ? WTERMSIG(m_status) : -1;
    return m_reaped;
}

void RunnerProcess::end() {
    if (m_pid > 0) {
        ::kill(-m_pid, SIGKILL);
        ::kill(m_pid, SIGKILL);
        if (!m_reaped)
            while (::waitpid(m_pid, &m_status, 0) < 0 && errno == EINTR) {
            }
        m_reaped = true;
        m_pid = -1;
    }
    // The pipe's write end may still be held by what the runner started (its group is gone
    // now; an escaped process is the subreaper's to kill): never wait long for EOF.
    if (m_log && m_log->thread.joinable())
        m_log->thread.detach();
}

std::string RunnerProcess::logTail() const {
    if (!m_log)
        return {};
    std::lock_guard lk(m_log->mutex);
    return m_log->text.size() > kLogTail ? m_log->text.substr(m_log->text.size() - kLogTail)
                                         : m_log->text;
}

}  // namespace reach
