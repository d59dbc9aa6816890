#include "core/verify/queueclock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace reach {

namespace {

constexpr size_t kRecordBytes = 64;  // one write, far below a page: never torn in practice

double readTotal(int fd, double* since = nullptr) {
    char buf[kRecordBytes + 1] = {};
    const ssize_t n = pread(fd, buf, kRecordBytes, 0);
    const QueueRecord r = parseQueueRecord(n > 0 ? std::string(buf, size_t(n)) : std::string());
    if (since)
        *since = r.since;
    return r.total;
}

void writeRecord(int fd, double total, double since) {
    char buf[kRecordBytes];
    std::snprintf(buf, sizeof buf, "%-63s",
                  (std::to_string(total) + " " + std::to_string(since)).c_str());
    buf[kRecordBytes - 1] = '\n';
    (void)!pwrite(fd, buf, kRecordBytes, 0);
}

}  // namespace

double monotonicSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

QueueRecord parseQueueRecord(const std::string& text) {
    QueueRecord r;
    char* end = nullptr;
    const double total = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(total) || total < 0 || total > 1e9)
        return {};
    const char* rest = end;
    const double since = std::strtod(rest, &end);
    r.total = total;
    r.since = end != rest && std::isfinite(since) && since > 0 ? since : 0;
    return r;
}

QueueWait::QueueWait() {
    const char* path = std::getenv("REACH_QUEUE_FILE");
    if (!path || !*path)
        return;
    m_fd = open(path, O_RDWR | O_CLOEXEC);
    if (m_fd < 0)
        return;
    m_total = readTotal(m_fd);
    m_start = monotonicSeconds();
    writeRecord(m_fd, m_total, m_start);
}

QueueWait::~QueueWait() {
    if (m_fd < 0)
        return;
    writeRecord(m_fd, m_total + (monotonicSeconds() - m_start), 0);
    close(m_fd);
}

QueueFile QueueFile::make() {
    QueueFile q;
    if (const char* outer = std::getenv("REACH_QUEUE_FILE"); outer && *outer) {
        q.m_fd = open(outer, O_RDWR | O_CLOEXEC);
        if (q.m_fd >= 0) {
            q.m_path = outer;
            q.m_before = readTotal(q.m_fd);
            return q;
        }
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/reach-queue-XXXXXX";
    const int fd = mkostemp(templ.data(), O_CLOEXEC);
    if (fd < 0)
        return q;
    fchmod(fd, 0600);
    q.m_fd = fd;
    q.m_path = templ;
    q.m_owned = true;
    writeRecord(fd, 0, 0);
    return q;
}

QueueFile::~QueueFile() {
    if (m_fd >= 0)
        close(m_fd);
    if (m_owned)
        unlink(m_path.c_str());
}

QueueFile::QueueFile(QueueFile&& o) noexcept
    : m_path(std::move(o.m_path)), m_fd(o.m_fd), m_owned(o.m_owned), m_before(o.m_before) {
    o.m_fd = -1;
    o.m_owned = false;
}

QueueFile& QueueFile::operator=(QueueFile&& o) noexcept {
    if (this != &o) {
        if (m_fd >= 0)
            close(m_fd);
        if (m_owned)
            unlink(m_path.c_str());
        m_path = std::move(o.m_path);
        m_fd = o.m_fd;
        m_owned = o.m_owned;
        m_before = o.m_before;
        o.m_fd = -1;
        o.m_owned = false;
    }
    return *this;
}

double QueueFile::queuedSeconds(double elapsed) const {
    if (m_fd < 0 || !(elapsed > 0))
        return 0;
    double since = 0;
    double total = readTotal(m_fd, &since) - m_before;
    if (since > 0) {
        const double now = monotonicSeconds();
        total += since < now ? now - since : 0;
    }
    return total < 0 ? 0 : total > elapsed ? elapsed : total;
}

}  // namespace reach
