#include "core/verify/childprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace reach {

ChildResult runChild(const std::vector<std::string>& argv, double timeoutSeconds,
                     const std::vector<std::string>& extraEnv) {
    ChildResult r;
    if (argv.empty()) {
        r.error = "no program given";
        return r;
    }
    int outPipe[2], errPipe[2], execPipe[2];
    if (pipe(outPipe) || pipe(errPipe) || pipe(execPipe)) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    fcntl(execPipe[1], F_SETFD, FD_CLOEXEC);
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(outPipe[1], 1);
        dup2(errPipe[1], 2);
        close(outPipe[0]);
        close(errPipe[0]);
        close(execPipe[0]);
        for (const auto& e : extraEnv)
            putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        int e = errno;
        (void)!write(execPipe[1], &e, sizeof e);
        _exit(127);
    }
    setpgid(pid, pid);  // also here, so the kill below cannot race the child's own setpgid
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

    pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
    int open = 2;
    char buf[65536];
    while (open > 0) {
        double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        int left = int((timeoutSeconds - elapsed) * 1000);
        if (left <= 0) {
            r.timedOut = true;
            kill(-pid, SIGKILL);
            break;
        }
        int n = poll(fds, 2, std::min(left, 200));
        if (n < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(fds[k].fd, buf, sizeof buf);
            if (got > 0) {
                (k == 0 ? r.out : r.err).append(buf, size_t(got));
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
    int status = 0;
    // After the pipes close the child may still be tearing down a GPU context: wait for it,
    // but never longer than the timeout allows.
    while (true) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0) {
            r.error = std::string("waitpid: ") + std::strerror(errno);
            break;
        }
        double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (elapsed > timeoutSeconds && !r.timedOut) {
            r.timedOut = true;
            kill(-pid, SIGKILL);
        }
        usleep(10000);
    }
    // The group may hold grandchildren (nvcc); they die with it.
    if (r.timedOut)
        kill(-pid, SIGKILL);
    if (WIFEXITED(status))
        r.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        r.termSignal = WTERMSIG(status);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace reach
