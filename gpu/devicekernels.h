#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/verify/dtype.h"

namespace reach {

// The controller's own small kernels, compiled at run time with NVRTC from source held here (no
// file, no cache a candidate could plant in), for the device in use:
// - perturb: dst[i] = round_to_dtype(src[i] * factor(seed, i)) for F32 and BF16 (core/verify/
//   perturb.h has the same arithmetic on the host, bit for bit);
// - gather: dst[j] = src[idx[j]], elements of `elementBytes` bytes (a timed repetition's output
//   sampled at the secret positions on the GPU, instead of read back whole).
// Throws std::runtime_error (NVRTC's log, or the CUDA error) when they cannot be built or run.
class DeviceKernels {
public:
    static const DeviceKernels& get();  // built once per process (the current device's arch)

    void perturb(void* dst, const void* src, int64_t n, DType dtype, uint64_t seed,
                 cudaStream_t stream) const;
    void gather(void* dst, const void* src, const int64_t* idx, int64_t k, int elementBytes,
                cudaStream_t stream) const;

private:
    DeviceKernels();
    cudaKernel_t m_perturbF32 = nullptr;
    cudaKernel_t m_perturbBf16 = nullptr;
    cudaKernel_t m_gather = nullptr;
};

}  // namespace reach
