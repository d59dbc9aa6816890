#include "gpu/sharedregion.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/verify/oracle.h"

namespace reach {

namespace {

// The driver's VMM functions, found through the runtime (cudaGetDriverEntryPointByVersion): not
// linked, so reach-verify still starts on a machine without the driver and says "no GPU".
struct Driver {
    PFN_cuCtxGetDevice_v2000 ctxGetDevice = nullptr;
    PFN_cuMemGetAllocationGranularity_v10020 granularity = nullptr;
    PFN_cuMemCreate_v10020 create = nullptr;
    PFN_cuMemAddressReserve_v10020 reserve = nullptr;
    PFN_cuMemMap_v10020 map = nullptr;
    PFN_cuMemSetAccess_v10020 setAccess = nullptr;
    PFN_cuMemExportToShareableHandle_v10020 exportHandle = nullptr;
    PFN_cuMemImportFromShareableHandle_v10020 importHandle = nullptr;
    PFN_cuMemUnmap_v10020 unmap = nullptr;
    PFN_cuMemAddressFree_v10020 addressFree = nullptr;
    PFN_cuMemRelease_v10020 release = nullptr;
    PFN_cuGetErrorName_v6000 errorName = nullptr;
};

template <typename F>
void entry(const char* name, unsigned version, F& fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess || !p)
        throw std::runtime_error(std::string("the CUDA driver has no ") + name);
    fn = reinterpret_cast<F>(p);
}

const Driver& driver() {
    static const Driver d = [] {
        Driver x;
        entry("cuCtxGetDevice", 2000, x.ctxGetDevice);
        entry("cuMemGetAllocationGranularity", 10020, x.granularity);
        entry("cuMemCreate", 10020, x.create);
        entry("cuMemAddressReserve", 10020, x.reserve);
        entry("cuMemMap", 10020, x.map);
        entry("cuMemSetAccess", 10020, x.setAccess);
        entry("cuMemExportToShareableHandle", 10020, x.exportHandle);
        entry("cuMemImportFromShareableHandle", 10020, x.importHandle);
        entry("cuMemUnmap", 10020, x.unmap);
        entry("cuMemAddressFree", 10020, x.addressFree);
        entry("cuMemRelease", 10020, x.release);
        entry("cuGetErrorName", 6000, x.errorName);
        return x;
    }();
    return d;
}

void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        driver().errorName(r, &name);
        throw std::runtime_error(std::string(what) + ": " + (name ? name : "CUDA driver error"));
    }
}

CUmemAllocationProp props(int device) {
    CUmemAllocationProp p{};
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    return p;
}

int currentDevice() {
    CUdevice d = 0;
    check(driver().ctxGetDevice(&d), "cuCtxGetDevice (no current CUDA context)");
    return int(d);
}

uint64_t mapHandle(uint64_t handle, size_t size, int device) {
    CUdeviceptr ptr = 0;
    check(driver().reserve(&ptr, size, 0, 0, 0), "cuMemAddressReserve");
    CUresult r = driver().map(ptr, size, 0, CUmemGenericAllocationHandle(handle), 0);
    if (r == CUDA_SUCCESS) {
        CUmemAccessDesc access{};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        r = driver().setAccess(ptr, size, &access, 1);
        if (r != CUDA_SUCCESS)
            driver().unmap(ptr, size);
    }
    if (r != CUDA_SUCCESS) {
        driver().addressFree(ptr, size);
        check(r, "cuMemMap");
    }
    return uint64_t(ptr);
}

}  // namespace

SharedRegion SharedRegion::create(size_t bytes) {
    const int device = currentDevice();
    CUmemAllocationProp p = props(device);
    size_t gran = 0;
    check(driver().granularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
          "cuMemGetAllocationGranularity");
    SharedRegion r;
    r.m_canary = kCanaryBytes;
    r.m_bytes = bytes;
    const size_t want = 2 * kCanaryBytes + (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
    r.m_total = (want + gran - 1) / gran * gran;
    CUmemGenericAllocationHandle h = 0;
    check(driver().create(&h, r.m_total, &p, 0), "cuMemCreate");
    r.m_handle = uint64_t(h);
    try {
        r.m_ptr = mapHandle(r.m_handle, r.m_total, device);
    } catch (...) {
        driver().release(h);
        r.m_handle = 0;
        throw;
    }
    r.fillCanaries();
    return r;
}

SharedRegion SharedRegion::attach(int fd, size_t total, size_t canary, size_t bytes) {
    const int device = currentDevice();
    if (canary > total || bytes > total - canary) {
        ::close(fd);
        throw std::runtime_error("shared region: sizes that do not fit");
    }
    CUmemGenericAllocationHandle h = 0;
    const CUresult r =
        driver().importHandle(&h, reinterpret_cast<void*>(static_cast<uintptr_t>(fd)),
                              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(fd);
    check(r, "cuMemImportFromShareableHandle");
    SharedRegion s;
    s.m_handle = uint64_t(h);
    s.m_total = total;
    s.m_canary = canary;
    s.m_bytes = bytes;
    try {
        s.m_ptr = mapHandle(s.m_handle, total, device);
    } catch (...) {
        driver().release(h);
        s.m_handle = 0;
        throw;
    }
    return s;
}

SharedRegion::~SharedRegion() {
    if (m_ptr) {
        driver().unmap(CUdeviceptr(m_ptr), m_total);
        driver().addressFree(CUdeviceptr(m_ptr), m_total);
    }
    if (m_handle)
        driver().release(CUmemGenericAllocationHandle(m_handle));
}

SharedRegion::SharedRegion(SharedRegion&& o) noexcept
    : m_ptr(std::exchange(o.m_ptr, 0)),
      m_handle(std::exchange(o.m_handle, 0)),
      m_total(o.m_total),
      m_bytes(o.m_bytes),
      m_canary(o.m_canary) {}

SharedRegion& SharedRegion::operator=(SharedRegion&& o) noexcept {
    if (this != &o) {
        this->~SharedRegion();
        m_ptr = std::exchange(o.m_ptr, 0);
        m_handle = std::exchange(o.m_handle, 0);
        m_total = o.m_total;
        m_bytes = o.m_bytes;
        m_canary = o.m_canary;
    }
    return *this;
}

int SharedRegion::exportFd() const {
    int fd = -1;
    check(driver().exportHandle(&fd, CUmemGenericAllocationHandle(m_handle),
                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          "cuMemExportToShareableHandle");
    return fd;
}

void SharedRegion::fillCanaries() const {
    if (!m_canary)
        return;
    cudaMemset(base(), kCanaryByte, m_canary);
    cudaMemset(base() + m_canary + m_bytes, kCanaryByte, m_total - m_canary - m_bytes);
}

int64_t SharedRegion::canaryDamage() const {
    if (!m_canary)
        return 0;
    std::vector<uint8_t> before(m_canary), after(m_total - m_canary - m_bytes);
    cudaMemcpy(before.data(), base(), before.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(after.data(), base() + m_canary + m_bytes, after.size(), cudaMemcpyDeviceToHost);
    int64_t n = 0;
    for (uint8_t b : before)
        n += b != kCanaryByte;
    for (uint8_t b : after)
        n += b != kCanaryByte;
    return n;
}

}  // namespace reach
