#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace reach {

// The CPUs this process may run on (its affinity mask: taskset, a cgroup's cpuset), which
// hardware_concurrency, counting the host's, does not see.
inline int cpusAvailable() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

// Splits [0, n) into contiguous chunks over the host's cores. References and input generation
// for realistic sizes (tens of millions of elements) must stay well under a second, so the
// verifier's end-to-end time is dominated by the GPU, not by single-threaded host loops.
template <typename F>
void parallelFor(int64_t n, F&& f, int64_t minChunk = 1 << 16) {
    int64_t threads = std::max<int64_t>(1, cpusAvailable());
    threads = std::min<int64_t>(threads, std::max<int64_t>(1, n / minChunk));
    if (threads <= 1) {
        f(int64_t(0), n);
        return;
    }
    std::vector<std::thread> pool;
    int64_t chunk = (n + threads - 1) / threads;
    for (int64_t t = 0; t < threads; ++t) {
        int64_t b = t * chunk, e = std::min(n, b + chunk);
        if (b >= e)
            break;
        pool.emplace_back([&f, b, e] { f(b, e); });
    }
    for (auto& th : pool)
        th.join();
}

}  // namespace reach
