#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace reach {

// Memory admission on a GPU that verifiers share (issue 38; docs/batch.md, "Memory"): a job
// books what it will hold before its first allocation and starts only when that fits beside the
// jobs already running, in the order the jobs asked (a big job is never starved by small ones); a
// job alone always starts. Waiting is reported as a wait for the GPU (QueueWait), never counted as
// the job's work.
//
// The ledger is $REACH_GPU_LOCK with ".memory" added, shared with the KernelBench-format worker
// (resources/python/reach_kb/gpumemory.py, which documents the format); one line per job,
//     "<pid> <its /proc start time> <bytes> <A|W> <ticket>"
// under the file's own flock. A line whose process is gone books nothing.

struct GpuMemoryEntry {
    long pid = 0;
    std::string start;  // /proc/PID/stat field 22
    int64_t bytes = 0;
    char state = 'W';  // A: admitted, W: waiting
    int64_t ticket = 0;
};

// The well-formed lines of a ledger's text (others book nothing).
std::vector<GpuMemoryEntry> parseGpuMemoryLedger(const std::string& text);
// Whether job `pid` may start now, given the live entries, its need, the admitted jobs' budget
// (a share of the GPU) and the driver's free bytes (<0: unknown).
bool gpuMemoryAdmits(const std::vector<GpuMemoryEntry>& live, long pid, int64_t need,
                     int64_t budget, int64_t freeBytes);

class GpuMemoryBooking {
public:
    // Books `need` bytes on a GPU of `totalBytes`, waiting in turn; `freeBytes` asks the driver.
    // No ledger (no $REACH_GPU_LOCK, or a file that cannot be opened): returns at once.
    GpuMemoryBooking(const std::string& ledgerPath, int64_t need, int64_t totalBytes,
                     const std::function<int64_t()>& freeBytes);
    ~GpuMemoryBooking();  // removes the line
    GpuMemoryBooking(const GpuMemoryBooking&) = delete;
    GpuMemoryBooking& operator=(const GpuMemoryBooking&) = delete;

    double waitedSeconds() const { return m_waited; }
    bool booked() const { return !m_path.empty(); }

    // $REACH_GPU_LOCK + ".memory", or "" when unset.
    static std::string pathFromEnvironment();

private:
    std::string m_path;
    double m_waited = 0;
};

constexpr double kGpuMemoryAdmitShare = 0.92;  // as gpumemory.py's ADMIT_SHARE

}  // namespace reach
