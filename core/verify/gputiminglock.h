#pragma once

#include <string>

namespace reach {

// Timing needs the whole GPU: a batch may run several verifiers on one GPU at once (compiling,
// checking), but only one of them may time at a time. Each verifier takes this lock (flock on a
// file, so it also holds across separate processes and separate batches on the host) around its
// timed loops. The file is named by $REACH_GPU_LOCK, which the batch sets per GPU; without it
// (a single run outside a batch) the lock is a no-op.
//
// A job holds the lock SHARED for its whole run (its untimed GPU work may overlap another job's)
// and converts it to EXCLUSIVE around each timed loop (exclusive(), on the same descriptor:
// flock releases the shared lock first, so two jobs waiting to time never deadlock), so that no
// other job's kernels are time-sliced into a timed repetition: they would lengthen it on the
// controller's clock and not on the runner's (resources/python/reach_kb/gpulock.py, the same).
class GpuTimingLock {
public:
    enum class Mode { Exclusive, Shared };
    // Blocks until the lock is held (or returns at once when path is empty). A file that cannot
    // be opened leaves the lock unheld: timing goes on, since refusing to time would be worse
    // than the rare overlap, and error() says why.
    explicit GpuTimingLock(const std::string& path, Mode mode = Mode::Exclusive);
    // Converts a held lock (a no-op when none is held).
    void exclusive();
    void shared();
    ~GpuTimingLock();
    GpuTimingLock(const GpuTimingLock&) = delete;
    GpuTimingLock& operator=(const GpuTimingLock&) = delete;

    bool held() const { return m_fd >= 0; }
    double waitedSeconds() const { return m_waited; }
    const std::string& error() const { return m_error; }

    // $REACH_GPU_LOCK, or "" when unset.
    static std::string pathFromEnvironment();
    // The lock file a batch names for one GPU: DIR/reach-gpu-<uuid or index>.lock.
    static std::string pathFor(const std::string& dir, const std::string& gpuKey);

private:
    int m_fd = -1;
    double m_waited = 0;
    std::string m_error;
};

}  // namespace reach
