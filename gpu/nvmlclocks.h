#pragma once

#include <string>

namespace reach {

// SM clock reads through NVML, loaded with dlopen so Reach neither links nor requires it: when
// libnvidia-ml is absent every read returns -1 and available() is false. Read-only: Reach never
// changes clocks or any other setting of the GPU.
class NvmlClocks {
public:
    NvmlClocks();
    ~NvmlClocks();
    NvmlClocks(const NvmlClocks&) = delete;
    NvmlClocks& operator=(const NvmlClocks&) = delete;

    bool available() const { return m_device != nullptr; }
    int smClockMhz() const;  // current SM clock, -1 when unknown
    std::string driverVersion() const;

private:
    void* m_lib = nullptr;
    void* m_device = nullptr;
    void* m_getClock = nullptr;
    void* m_driverVersion = nullptr;
    void* m_shutdown = nullptr;
};

}  // namespace reach
