#pragma once

#include <cstddef>
#include <cstdint>

namespace reach {

// GPU memory the controller shares with the runner (docs/verifier.md, "Trust boundary"): one CUDA
// VMM allocation per buffer, made outside any allocator for exactly that buffer and exported as a
// POSIX file descriptor (sent over the channel with SCM_RIGHTS), so the runner can map that buffer
// and nothing else of the controller's; legacy CUDA IPC handles would also stop working across
// the PID namespaces of a sandbox. Laid out [canary | data | canary] (kCanaryBytes of
// kCanaryByte, core/verify/oracle.h), so writes past either end show. The device's primary
// context (the CUDA runtime's) must be current.
class SharedRegion {
public:
    // Made by the controller: `bytes` of data with their canaries (filled).
    static SharedRegion create(size_t bytes);
    // Mapped by the runner from a descriptor (closed here) and the total size the controller sent.
    static SharedRegion attach(int fd, size_t total, size_t canary, size_t bytes);

    SharedRegion() = default;
    ~SharedRegion();
    SharedRegion(SharedRegion&& o) noexcept;
    SharedRegion& operator=(SharedRegion&& o) noexcept;
    SharedRegion(const SharedRegion&) = delete;
    SharedRegion& operator=(const SharedRegion&) = delete;

    int exportFd() const;  // a new descriptor for the runner (the caller closes it once sent)
    void* data() const { return reinterpret_cast<void*>(m_ptr + m_canary); }
    uint8_t* base() const { return reinterpret_cast<uint8_t*>(m_ptr); }
    size_t bytes() const { return m_bytes; }
    size_t total() const { return m_total; }
    size_t canary() const { return m_canary; }
    void fillCanaries() const;
    int64_t canaryDamage() const;  // canary bytes no longer kCanaryByte

private:
    uint64_t m_ptr = 0;     // CUdeviceptr
    uint64_t m_handle = 0;  // CUmemGenericAllocationHandle
    size_t m_total = 0, m_bytes = 0, m_canary = 0;
};

}  // namespace reach
