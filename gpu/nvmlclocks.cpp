#include "gpu/nvmlclocks.h"

#include <dlfcn.h>

namespace reach {

namespace {
// The few NVML entry points used, with their C signatures (nvml.h is not needed at build time).
using InitFn = int (*)();
using HandleFn = int (*)(unsigned, void**);
using ClockFn = int (*)(void*, int, unsigned*);
using DriverFn = int (*)(char*, unsigned);
using ShutdownFn = int (*)();
constexpr int kNvmlClockSm = 1;
}  // namespace

NvmlClocks::NvmlClocks() {
    m_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!m_lib)
        return;
    auto init = reinterpret_cast<InitFn>(dlsym(m_lib, "nvmlInit_v2"));
    auto handle = reinterpret_cast<HandleFn>(dlsym(m_lib, "nvmlDeviceGetHandleByIndex_v2"));
    m_getClock = dlsym(m_lib, "nvmlDeviceGetClockInfo");
    m_driverVersion = dlsym(m_lib, "nvmlSystemGetDriverVersion");
    m_shutdown = dlsym(m_lib, "nvmlShutdown");
    if (!init || !handle || !m_getClock || init() != 0)
        return;
    void* dev = nullptr;
    // Reach times on CUDA device 0; with one visible GPU NVML's index 0 is the same board.
    if (handle(0, &dev) == 0)
        m_device = dev;
}

NvmlClocks::~NvmlClocks() {
    if (m_device && m_shutdown)
        reinterpret_cast<ShutdownFn>(m_shutdown)();
    if (m_lib)
        dlclose(m_lib);
}

int NvmlClocks::smClockMhz() const {
    if (!m_device)
        return -1;
    unsigned mhz = 0;
    if (reinterpret_cast<ClockFn>(m_getClock)(m_device, kNvmlClockSm, &mhz) != 0)
        return -1;
    return int(mhz);
}

std::string NvmlClocks::driverVersion() const {
    if (!m_device || !m_driverVersion)
        return "";
    char buf[96] = {};
    if (reinterpret_cast<DriverFn>(m_driverVersion)(buf, sizeof buf) != 0)
        return "";
    return buf;
}

}  // namespace reach
