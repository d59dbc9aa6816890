#include "core/verify/gputiminglock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/verify/queueclock.h"

namespace reach {

namespace {
// Takes the lock; a wait for another job is reported to the controller (queueclock.h), whose
// clock of this job's own work stops meanwhile.
bool lockAs(int fd, int how) {
    if (flock(fd, how | LOCK_NB) == 0)
        return true;
    if (errno != EWOULDBLOCK && errno != EINTR)
        return false;
    const QueueWait waiting;
    while (flock(fd, how) != 0)
        if (errno != EINTR)
            return false;
    return true;
}
}  // namespace

void GpuTimingLock::exclusive() {
    if (m_fd >= 0)
        lockAs(m_fd, LOCK_EX);
}

void GpuTimingLock::shared() {
    if (m_fd >= 0)
        lockAs(m_fd, LOCK_SH);
}

GpuTimingLock::GpuTimingLock(const std::string& path, Mode mode) {
    if (path.empty())
        return;
    const auto t0 = std::chrono::steady_clock::now();
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        m_error = path + ": " + std::strerror(errno);
        return;
    }
    // Other users' batches on the same host lock the same file (umask would make it 0644).
    fchmod(fd, 0666);
    if (!lockAs(fd, mode == Mode::Shared ? LOCK_SH : LOCK_EX)) {
        m_error = path + ": flock: " + std::strerror(errno);
        close(fd);
        return;
    }
    m_fd = fd;
    m_waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

GpuTimingLock::~GpuTimingLock() {
    if (m_fd >= 0)
        close(m_fd);  // releases the flock
}

std::string GpuTimingLock::pathFromEnvironment() {
    const char* p = std::getenv("REACH_GPU_LOCK");
    return p ? p : "";
}

std::string GpuTimingLock::pathFor(const std::string& dir, const std::string& gpuKey) {
    std::string safe;
    for (char c : gpuKey)
        safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
    return (dir.empty() ? std::string("/tmp") : dir) + "/reach-gpu-" + safe + ".lock";
}

}  // namespace reach
