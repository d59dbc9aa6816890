#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace reach {

// Two 32-bit words in a buffer both the controller and the runner map (a SharedRegion), on which
// their streams meet without either host in between (docs/verifier.md, "A time the judge owns"):
// the controller's stream writes `go` after its flush and spacer and waits for `done`; the
// runner's stream waits for `go` before the call and writes `done` after it (the driver's stream
// memory operations, cuStreamWaitValue32 / cuStreamWriteValue32, found through the runtime as the
// VMM functions are, gpu/sharedregion.cpp).
class StreamFlags {
public:
    static constexpr uint32_t kGo = 0, kDone = 4;  // byte offsets

    explicit StreamFlags(void* base) : m_base(reinterpret_cast<uint64_t>(base)) {}
    // Throws std::runtime_error with the driver's error.
    void wait(cudaStream_t s, uint32_t which, uint32_t atLeast) const;
    void write(cudaStream_t s, uint32_t which, uint32_t value) const;

private:
    uint64_t m_base;
};

}  // namespace reach
