// Reach candidate ABI (see docs/verifier.md). A candidate is one CUDA C++ file that includes this
// header and exports reach_run. The verifier allocates every tensor (contiguous, row-major) and
// pre-fills outputs with a sentinel before each run; reach_run launches work on `stream` and
// returns 0 on success. It must not synchronize the device or allocate per call if it can avoid it.
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#else
typedef struct CUstream_st* cudaStream_t;
#endif

enum reach_dtype {
    REACH_F32 = 0,
    REACH_BF16 = 1,
    REACH_F16 = 2,
    REACH_I32 = 3,
    REACH_I64 = 4,
};

typedef struct reach_tensor {
    void* data;
    int32_t dtype;  // enum reach_dtype
    int32_t ndim;
    int64_t shape[8];
} reach_tensor;

#ifdef __cplusplus
extern "C" {
#endif
// What every candidate exports.
typedef int (*reach_run_fn)(const reach_tensor* inputs, int n_inputs, reach_tensor* outputs,
                            int n_outputs, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#if defined(__cplusplus) && defined(__CUDACC__)
// Optional conveniences for hand-written candidates: element count and float load/store for the
// two floating dtypes (f32, bf16), so one template serves both.
static inline int64_t reach_numel(const reach_tensor& t) {
    int64_t n = 1;
    for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
    return n;
}
__device__ __forceinline__ float reach_to_float(float v) { return v; }
__device__ __forceinline__ float reach_to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T reach_from_float(float v);
template <>
__device__ __forceinline__ float reach_from_float<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 reach_from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16(v);
}
// Calls f.template operator()<T>() with T = float or __nv_bfloat16 from a dtype code.
#define REACH_DISPATCH_FLOAT(dtype, ...)                       \
    ((dtype) == REACH_BF16 ? __VA_ARGS__(__nv_bfloat16{})      \
                           : __VA_ARGS__(float{}))
#endif
