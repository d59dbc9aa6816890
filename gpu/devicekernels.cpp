#include "gpu/devicekernels.h"

#include <nvrtc.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace reach {

namespace {

// The arithmetic of core/verify/perturb.cpp, in CUDA: __fmul_rn and __fadd_rn so that nothing is
// fused, __float2bfloat16_rn as floatToBf16 (round to nearest even).
const char* kSource = R"CUDA(
typedef unsigned long long u64;
typedef long long i64;
__device__ __forceinline__ u64 splitmix64(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
__device__ __forceinline__ float factor(u64 seed, u64 i) {
    unsigned u = (unsigned)(splitmix64(seed ^ splitmix64(i)) >> 42);
    return __fadd_rn(0.75f, __fmul_rn((float)u, 1.1920928955078125e-07f));
}
__device__ __forceinline__ unsigned short to_bf16(float f) {
    unsigned u = __float_as_uint(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return (unsigned short)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
extern "C" __global__ void reach_perturb_f32(float* dst, const float* src, i64 n, u64 seed) {
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        dst[i] = __fmul_rn(src[i], factor(seed, (u64)i));
}
extern "C" __global__ void reach_perturb_bf16(unsigned short* dst, const unsigned short* src, i64 n, u64 seed) {
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
        dst[i] = to_bf16(__fmul_rn(__uint_as_float(((unsigned)src[i]) << 16), factor(seed, (u64)i)));
}
extern "C" __global__ void reach_gather(unsigned char* dst, const unsigned char* src, const i64* idx, i64 k, int es) {
    for (i64 j = blockIdx.x * (i64)blockDim.x + threadIdx.x; j < k; j += (i64)gridDim.x * blockDim.x)
        for (int b = 0; b < es; ++b) dst[j * es + b] = src[idx[j] * es + b];
}
)CUDA";

void nvrtcCheck(nvrtcResult r, const char* what) {
    if (r != NVRTC_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + nvrtcGetErrorString(r));
}

void cudaCheck(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

int blocksFor(int64_t n) {
    return int(std::min<int64_t>((n + 255) / 256, 65535 * 4));
}

}  // namespace

DeviceKernels::DeviceKernels() {
    int dev = 0, major = 0, minor = 0;
    cudaCheck(cudaGetDevice(&dev), "cudaGetDevice");
    cudaCheck(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), "arch");
    cudaCheck(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), "arch");
    nvrtcProgram prog = nullptr;
    nvrtcCheck(nvrtcCreateProgram(&prog, kSource, "reach_controller.cu", 0, nullptr, nullptr),
               "nvrtcCreateProgram");
    const std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
    const char* opts[] = {arch.c_str(), "--fmad=false"};
    const nvrtcResult built = nvrtcCompileProgram(prog, 2, opts);
    if (built != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        std::string log(n, '\0');
        nvrtcGetProgramLog(prog, log.data());
        nvrtcDestroyProgram(&prog);
        throw std::runtime_error("the controller's kernels did not compile: " + log);
    }
    size_t ptxSize = 0;
    nvrtcCheck(nvrtcGetPTXSize(prog, &ptxSize), "nvrtcGetPTXSize");
    std::vector<char> ptx(ptxSize);
    nvrtcCheck(nvrtcGetPTX(prog, ptx.data()), "nvrtcGetPTX");
    nvrtcDestroyProgram(&prog);
    cudaLibrary_t lib = nullptr;  // left loaded for the process: the kernels are used to the end
    cudaCheck(cudaLibraryLoadData(&lib, ptx.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "cudaLibraryLoadData");
    cudaCheck(cudaLibraryGetKernel(&m_perturbF32, lib, "reach_perturb_f32"), "reach_perturb_f32");
    cudaCheck(cudaLibraryGetKernel(&m_perturbBf16, lib, "reach_perturb_bf16"),
              "reach_perturb_bf16");
    cudaCheck(cudaLibraryGetKernel(&m_gather, lib, "reach_gather"), "reach_gather");
}

const DeviceKernels& DeviceKernels::get() {
    static const DeviceKernels k;
    return k;
}

void DeviceKernels::perturb(void* dst, const void* src, int64_t n, DType dtype, uint64_t seed,
                            cudaStream_t stream) const {
    cudaKernel_t k = dtype == DType::F32    ? m_perturbF32
                     : dtype == DType::BF16 ? m_perturbBf16
                                            : nullptr;
    if (!k) {  // an index tensor: as it is
        cudaCheck(cudaMemcpyAsync(dst, src, size_t(n) * dtypeSize(dtype), cudaMemcpyDeviceToDevice,
                                  stream),
                  "cudaMemcpyAsync");
        return;
    }
    if (n == 0)
        return;
    unsigned long long s = seed;
    long long count = n;
    void* args[] = {&dst, const_cast<void**>(reinterpret_cast<const void* const*>(&src)), &count,
                    &s};
    cudaCheck(cudaLaunchKernel(reinterpret_cast<const void*>(k), dim3(blocksFor(n)), dim3(256),
                               args, 0, stream),
              "perturb");
}

void DeviceKernels::gather(void* dst, const void* src, const int64_t* idx, int64_t k,
                           int elementBytes, cudaStream_t stream) const {
    if (k == 0)
        return;
    long long count = k;
    int es = elementBytes;
    void* args[] = {&dst, const_cast<void**>(reinterpret_cast<const void* const*>(&src)),
                    const_cast<void**>(reinterpret_cast<const void* const*>(&idx)), &count, &es};
    cudaCheck(cudaLaunchKernel(reinterpret_cast<const void*>(m_gather), dim3(blocksFor(k)),
                               dim3(256), args, 0, stream),
              "gather");
}

}  // namespace reach
