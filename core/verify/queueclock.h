#pragma once

#include <string>

namespace reach {

// Waiting for a GPU is not a job's work (issue 38: an honest job queued behind another job's
// torch.compile was killed as a hang, "timeout after 13 s" for a job that had run 27 s). A job's
// timeout measures its own work; its waits are measured apart (queue_s) and bounded by their own
// limit, which ends in "error: the GPU was busy for N s", never in `timeout` or `crashed`.
//
// The process that waits (resources/python/reach_kb/gpulock.py in a KernelBench-format worker,
// GpuTimingLock in reach-verify for a C++ job) reports in the file $REACH_QUEUE_FILE names: one
// record at its start,
//     "<seconds waited so far> <CLOCK_MONOTONIC second the current wait began, 0 if none>"
// (CLOCK_MONOTONIC is one clock for every process of the machine). The controller that runs the
// job (runChild, the worker server's client) reads it while it waits. A job's candidate may
// write the file too (a KernelBench reproduction runs it in the worker): what it can gain is the
// queue limit, and a wait past it is `error`, never a verdict.

double monotonicSeconds();

// The job's side: a wait for the GPU, reported for as long as this object lives (nothing
// without $REACH_QUEUE_FILE). The total adds to what earlier waits of the job reported.
class QueueWait {
public:
    QueueWait();
    ~QueueWait();
    QueueWait(const QueueWait&) = delete;
    QueueWait& operator=(const QueueWait&) = delete;

private:
    int m_fd = -1;
    double m_total = 0, m_start = 0;
};

// The controller's side: the file one job reports in.
class QueueFile {
public:
    // A new private file in $TMPDIR (or /tmp); or, when this process is itself a job of a
    // controller that reads one ($REACH_QUEUE_FILE), that same file: a nested job's waits reach
    // every controller above it (reach-cli -> reach-verify -> the worker), each counting from
    // what the file held when it started. An empty path when no file can be made (no waits
    // are then told apart: the timeout counts them, as before).
    static QueueFile make();
    QueueFile() = default;
    ~QueueFile();
    QueueFile(QueueFile&& other) noexcept;
    QueueFile& operator=(QueueFile&& other) noexcept;
    QueueFile(const QueueFile&) = delete;
    QueueFile& operator=(const QueueFile&) = delete;

    const std::string& path() const { return m_path; }
    // The seconds waited since this controller started, `elapsed` seconds ago: the record's,
    // clamped to [0, elapsed] (a torn or hostile record never adds time that did not pass).
    double queuedSeconds(double elapsed) const;

private:
    std::string m_path;
    int m_fd = -1;
    bool m_owned = false;
    double m_before = 0;  // what the file held when this controller started
};

// Reads a record (for tests and the readers above): {waited so far, wait began or 0}; {0, 0}
// when the text is no record.
struct QueueRecord {
    double total = 0, since = 0;
};
QueueRecord parseQueueRecord(const std::string& text);

}  // namespace reach
