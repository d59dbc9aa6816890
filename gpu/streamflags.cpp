#include "gpu/streamflags.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

namespace reach {

namespace {

struct MemOps {
    PFN_cuStreamWaitValue32_v11070 wait = nullptr;
    PFN_cuStreamWriteValue32_v11070 write = nullptr;
};

const MemOps& memops() {
    static const MemOps m = [] {
        MemOps x;
        for (auto [name, slot] : {std::pair<const char*, void**>{"cuStreamWaitValue32",
                                                                 reinterpret_cast<void**>(&x.wait)},
                                  {"cuStreamWriteValue32", reinterpret_cast<void**>(&x.write)}}) {
            cudaDriverEntryPointQueryResult status{};
            if (cudaGetDriverEntryPointByVersion(name, slot, 11070, cudaEnableDefault, &status) !=
                    cudaSuccess ||
                status != cudaDriverEntryPointSuccess || !*slot)
                throw std::runtime_error(std::string("the CUDA driver has no ") + name);
        }
        return x;
    }();
    return m;
}

void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed (CUresult " + std::to_string(int(r)) +
                                 ")");
}

}  // namespace

void StreamFlags::wait(cudaStream_t s, uint32_t which, uint32_t atLeast) const {
    check(memops().wait(reinterpret_cast<CUstream>(s), m_base + which, atLeast,
                        CU_STREAM_WAIT_VALUE_GEQ),
          "cuStreamWaitValue32");
}

void StreamFlags::write(cudaStream_t s, uint32_t which, uint32_t value) const {
    check(memops().write(reinterpret_cast<CUstream>(s), m_base + which, value,
                         CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32");
}

}  // namespace reach
