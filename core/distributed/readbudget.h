#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace reach {

// What reading one rank's trace holds in memory at its peak, estimated from the file before it
// is read: the Kineto reader keeps compact records per event, so its peak follows the events per
// byte of JSON: ~0.14 bytes per byte on the H200 Qwen2.5-14B trace repeated (67 and 177 MB for
// 0.27 and 1.08 GB), ~0.25 on HTA's sampled DLRM rank repeated (147 MB for 0.51 GB, its events
// smaller); the estimate takes the larger, plus the reader's buffers. A gzip file's JSON size
// comes from its trailer and the ratio of its first blocks; a rank summary's is its own size.
uint64_t rankReadingBytes(const std::string& file);

// The ranks being read at once hold at most `budget` bytes by their estimates (0: no bound): a
// rank starts when it fits beside the others, or alone when it does not fit at all (it is read
// anyway, one at a time). Blocking; one object shared by a run's reading threads.
class ReadBudget {
public:
    explicit ReadBudget(uint64_t budget) : m_budget(budget) {}
    void acquire(uint64_t bytes);
    void release(uint64_t bytes);
    int inFlight() const;  // readings holding a share now

private:
    const uint64_t m_budget;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    uint64_t m_booked = 0;
    int m_readers = 0;
};

}  // namespace reach
