#include "core/verify/gpumemoryledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "core/verify/queueclock.h"

namespace reach {

namespace {

constexpr size_t kMaxLines = 4096;
constexpr int64_t kMaxBytes = int64_t(1) << 50;

std::string startTimeOf(long pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (paren == std::string::npos || paren + 2 > text.size())
        return "";
    std::istringstream rest(text.substr(paren + 2));
    std::string field;
    for (int i = 0; i < 20 && (rest >> field); ++i) {
        if (i == 19)
            return field;
    }
    return "";
}

bool alive(const GpuMemoryEntry& e) {
    return !e.start.empty() && startTimeOf(e.pid) == e.start;
}

bool allDigits(const std::string& s) {
    if (s.empty() || s.size() > 18)
        return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
    return true;
}

// The ledger's flock, held for microseconds by anyone.
class LockedLedger {
public:
    explicit LockedLedger(const std::string& path) {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (m_fd < 0)
            return;
        ::fchmod(m_fd, 0666);  // other users' jobs on this GPU book here too
        while (::flock(m_fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                ::close(m_fd);
                m_fd = -1;
                return;
            }
        }
    }
    ~LockedLedger() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    LockedLedger(const LockedLedger&) = delete;
    LockedLedger& operator=(const LockedLedger&) = delete;
    bool ok() const { return m_fd >= 0; }

    std::vector<GpuMemoryEntry> liveEntries() const {
        std::string text(kMaxLines * 64, '\0');
        const ssize_t n = ::pread(m_fd, text.data(), text.size(), 0);
        text.resize(n > 0 ? size_t(n) : 0);
        std::vector<GpuMemoryEntry> out;
        for (GpuMemoryEntry& e : parseGpuMemoryLedger(text))
            if (alive(e))
                out.push_back(std::move(e));
        return out;
    }
    void write(const std::vector<GpuMemoryEntry>& entries) const {
        std::string text;
        for (const GpuMemoryEntry& e : entries)
            text += std::to_string(e.pid) + " " + e.start + " " + std::to_string(e.bytes) + " " +
                    e.state + " " + std::to_string(e.ticket) + "\n";
        if (::pwrite(m_fd, text.data(), text.size(), 0) == ssize_t(text.size()))
            (void)::ftruncate(m_fd, off_t(text.size()));
    }

private:
    int m_fd = -1;
};

}  // namespace

std::vector<GpuMemoryEntry> parseGpuMemoryLedger(const std::string& text) {
    std::vector<GpuMemoryEntry> out;
    std::istringstream lines(text);
    std::string line;
    for (size_t k = 0; k < kMaxLines && std::getline(lines, line); ++k) {
        std::istringstream f(line);
        std::string pid, start, bytes, state, ticket, extra;
        if (!(f >> pid >> start >> bytes >> state >> ticket) || (f >> extra))
            continue;
        if (!allDigits(pid) || !allDigits(start) || !allDigits(bytes) || !allDigits(ticket) ||
            (state != "A" && state != "W"))
            continue;
        GpuMemoryEntry e;
        e.pid = std::stol(pid);
        e.start = start;
        e.bytes = std::stoll(bytes);
        e.state = state[0];
        e.ticket = std::stoll(ticket);
        if (e.pid > 0 && e.bytes <= kMaxBytes)
            out.push_back(std::move(e));
    }
    return out;
}

bool gpuMemoryAdmits(const std::vector<GpuMemoryEntry>& live, long pid, int64_t need,
                     int64_t budget, int64_t freeBytes) {
    int64_t mine = INT64_MAX;
    for (const GpuMemoryEntry& e : live)
        if (e.pid == pid)
            mine = e.ticket;
    int64_t booked = 0;
    bool othersAdmitted = false;
    for (const GpuMemoryEntry& e : live) {
        if (e.pid == pid)
            continue;
        if (e.state == 'W' && e.ticket < mine)
            return false;  // first come, first served
        if (e.state == 'A') {
            othersAdmitted = true;
            booked += e.bytes;
        }
    }
    if (!othersAdmitted)
        return true;  // alone: the estimate never forbids a job to run
    return booked + need <= budget && (freeBytes < 0 || need <= freeBytes);
}

std::string GpuMemoryBooking::pathFromEnvironment() {
    const char* p = std::getenv("REACH_GPU_LOCK");
    return p && *p ? std::string(p) + ".memory" : "";
}

GpuMemoryBooking::GpuMemoryBooking(const std::string& ledgerPath, int64_t need, int64_t totalBytes,
                                   const std::function<int64_t()>& freeBytes) {
    if (ledgerPath.empty())
        return;
    const long me = long(::getpid());
    const std::string start = startTimeOf(me);
    const auto budget = int64_t(double(totalBytes) * kGpuMemoryAdmitShare);
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<QueueWait> waiting;
    for (;;) {
        {
            const LockedLedger ledger(ledgerPath);
            if (!ledger.ok())
                return;  // no ledger to be had: as without one
            std::vector<GpuMemoryEntry> live = ledger.liveEntries();
            GpuMemoryEntry* mine = nullptr;
            int64_t last = 0;
            for (GpuMemoryEntry& e : live) {
                last = std::max(last, e.ticket);
                if (e.pid == me)
                    mine = &e;
            }
            if (!mine) {
                live.push_back({me, start, need, 'W', last + 1});
                mine = &live.back();
            }
            if (gpuMemoryAdmits(live, me, need, budget, freeBytes ? freeBytes() : -1)) {
                mine->state = 'A';
                ledger.write(live);
                m_path = ledgerPath;
                m_waited =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                return;
            }
            ledger.write(live);
        }
        if (!waiting)
            waiting = std::make_unique<QueueWait>();
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

GpuMemoryBooking::~GpuMemoryBooking() {
    if (m_path.empty())
        return;
    const LockedLedger ledger(m_path);
    if (!ledger.ok())
        return;
    std::vector<GpuMemoryEntry> keep;
    for (GpuMemoryEntry& e : ledger.liveEntries())
        if (e.pid != long(::getpid()))
            keep.push_back(std::move(e));
    ledger.write(keep);
}

}  // namespace reach
