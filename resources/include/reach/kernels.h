// Small device helpers shared by Reach's own kernels (controls and baselines). Candidates may
// include it too; it is part of the compile cache key like candidate.h.
#pragma once

#include <reach/candidate.h>

#ifdef __CUDACC__
#include <cuda_bf16.h>

#include <cfloat>

namespace reach_k {

__device__ __forceinline__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warpMax(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
// Block-wide reductions; every thread gets the result. `scratch` holds 32 floats.
__device__ __forceinline__ float blockSum(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = warpSum(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nw ? scratch[lane] : 0.f;
    return warpSum(v);
}
__device__ __forceinline__ float blockMax(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    v = warpMax(v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nw ? scratch[lane] : -FLT_MAX;
    return warpMax(v);
}

// 16-byte vector of N elements of T (N = 4 for float, 8 for bf16).
template <typename T>
struct Vec;
template <>
struct Vec<float> {
    static constexpr int N = 4;
    using Raw = float4;
};
template <>
struct Vec<__nv_bfloat16> {
    static constexpr int N = 8;
    using Raw = uint4;
};

template <typename T>
__device__ __forceinline__ void loadVec(const T* p, float* out) {
    typename Vec<T>::Raw raw = *reinterpret_cast<const typename Vec<T>::Raw*>(p);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int i = 0; i < Vec<T>::N; ++i) out[i] = reach_to_float(e[i]);
}
template <typename T>
__device__ __forceinline__ void storeVec(T* p, const float* in) {
    typename Vec<T>::Raw raw;
    T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
    for (int i = 0; i < Vec<T>::N; ++i) e[i] = reach_from_float<T>(in[i]);
    *reinterpret_cast<typename Vec<T>::Raw*>(p) = raw;
}

}  // namespace reach_k
#endif
