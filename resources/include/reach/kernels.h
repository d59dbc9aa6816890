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

// Elementwise map over 16-byte vectors, one tile of U x TH vectors per block: each thread loads
// its U vectors of every input before computing any, and block 0 does the scalar tail. F is a
// functor with kInputs = 1 (f(x)) or 2 (f(a, b)), applied in fp32. One tile per block instead
// of a grid-stride loop capped at 132 x 16 blocks was 3-6 % faster for add, relu and silu on the
// H200 (docs/measurements/2026-11-29-baselines-against-the-floor.md).
template <int U, int TH, typename T, class F>
__global__ void __launch_bounds__(TH) mapTiles(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, int64_t n, F f) {
    constexpr int N = Vec<T>::N;
    using Raw = typename Vec<T>::Raw;
    const int64_t nv = n / N, base = int64_t(blockIdx.x) * U * TH + threadIdx.x;
    Raw ra[U], rb[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
        if (base + u * TH < nv) {
            ra[u] = reinterpret_cast<const Raw*>(a)[base + u * TH];
            if constexpr (F::kInputs == 2) rb[u] = reinterpret_cast<const Raw*>(b)[base + u * TH];
        }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        if (base + u * TH >= nv) continue;
        T* ea = reinterpret_cast<T*>(&ra[u]);
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if constexpr (F::kInputs == 2)
                ea[k] = reach_from_float<T>(f(reach_to_float(ea[k]), reach_to_float(reinterpret_cast<const T*>(&rb[u])[k])));
            else
                ea[k] = reach_from_float<T>(f(reach_to_float(ea[k])));
        }
        reinterpret_cast<Raw*>(y)[base + u * TH] = ra[u];
    }
    if (blockIdx.x == 0)
        for (int64_t i = nv * N + threadIdx.x; i < n; i += TH) {
            if constexpr (F::kInputs == 2)
                y[i] = reach_from_float<T>(f(reach_to_float(a[i]), reach_to_float(b[i])));
            else
                y[i] = reach_from_float<T>(f(reach_to_float(a[i])));
        }
}

// reach_run of an elementwise operator: inputs in[0] (and in[1]), output out[0], any shape.
template <int U, int TH, class F>
int runMapTiles(const reach_tensor* in, reach_tensor* out, F f, cudaStream_t s) {
    const int64_t n = reach_numel(in[0]);
    auto go = [&](auto t) {
        using T = decltype(t);
        const int64_t tiles = (n / Vec<T>::N + U * TH - 1) / (U * TH);
        const T* b = F::kInputs == 2 ? static_cast<const T*>(in[1].data) : nullptr;
        mapTiles<U, TH, T, F><<<unsigned(tiles < 1 ? 1 : tiles), TH, 0, s>>>(static_cast<const T*>(in[0].data), b,
                                                                             static_cast<T*>(out[0].data), n, f);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}

}  // namespace reach_k
#endif
