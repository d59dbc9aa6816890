// Row-wise baselines (softmax, log_softmax, layernorm, rmsnorm): one block of kRowThreads threads
// per row. A row that fits (C a multiple of the vector width, at most kRowThreads x 16 vectors)
// is cached in registers, so it is read once and written once; a longer one is streamed from
// memory in each pass (it stays in L2 for moderate C). Thread t holds the row's 16-byte vectors
// t, t + kRowThreads, ... (K of them).
// These helpers replaced per-file macros; the kernels' PTX is unchanged by that
// (docs/measurements/2026-11-29-what-limits-the-gathers.md).
#pragma once

#include <reach/kernels.h>

#ifdef __CUDACC__
#include <type_traits>

namespace reach_k {

constexpr int kRowThreads = 256;

// The cached slice widened to fp32 (log_softmax, layernorm, rmsnorm).
template <typename T, int K>
struct RowFloats {
    static constexpr int N = Vec<T>::N, Vecs = K;
    float buf[K][N];
    __device__ __forceinline__ void load(const T* xr, int64_t C) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int64_t c = int64_t(k * kRowThreads + threadIdx.x) * N;
            if (c < C) loadVec(xr + c, buf[k]);
        }
    }
    __device__ __forceinline__ float at(int k, int e) const { return buf[k][e]; }
};

// The cached slice kept as raw vectors, widened on use (softmax: bf16 stays packed, half the
// registers of fp32 copies, so more blocks fit per SM and more loads are in flight). Loaded
// with streaming hints: x is read once.
template <typename T, int K>
struct RowRaw {
    static constexpr int N = Vec<T>::N, Vecs = K;
    using Raw = typename Vec<T>::Raw;
    Raw buf[K];
    __device__ __forceinline__ void load(const T* xr, int64_t C) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int64_t c = int64_t(k * kRowThreads + threadIdx.x) * N;
            if (c < C) buf[k] = __ldcs(reinterpret_cast<const Raw*>(xr + c));
        }
    }
    __device__ __forceinline__ float at(int k, int e) const {
        return reach_to_float(reinterpret_cast<const T*>(&buf[k])[e]);
    }
};

// f(v) for every element of the row this thread holds.
template <class Row, class F>
__device__ __forceinline__ void rowEach(const Row& row, int64_t C, F f) {
    constexpr int K = Row::Vecs, N = Row::N;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        if ((k * kRowThreads + int(threadIdx.x)) * N < C) {
#pragma unroll
            for (int e = 0; e < N; ++e) f(row.at(k, e));
        }
    }
}

// For every vector k the thread holds (first column c0): out(k, c0, o) fills o[N], stored at
// yr + c0.
template <typename T, class Row, class Out>
__device__ __forceinline__ void rowStore(const Row& row, T* yr, int64_t C, Out out) {
    constexpr int K = Row::Vecs, N = Row::N;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        int64_t c0 = int64_t(k * kRowThreads + threadIdx.x) * N;
        if (c0 >= C) continue;
        float o[N];
        out(k, c0, o);
        storeVec(yr + c0, o);
    }
}

// f(v) for every element c = threadIdx.x, threadIdx.x + kRowThreads, ... of a row in memory.
template <typename T, class F>
__device__ __forceinline__ void rowEachInMemory(const T* xr, int64_t C, F f) {
    for (int64_t c = threadIdx.x; c < C; c += kRowThreads) f(reach_to_float(xr[c]));
}

// The row's max M and sum of exp(v - M), block-wide (softmax and log_softmax): each(f) calls
// f(v) for every element this thread holds (rowEach or rowEachInMemory).
template <class Each>
__device__ __forceinline__ float2 rowMaxAndSumExp(Each each, float* scratch) {
    float m = -FLT_MAX;
    each([&](float v) { m = fmaxf(m, v); });
    m = blockMax(m, scratch);
    float s = 0;
    each([&](float v) { s += __expf(v - m); });
    return make_float2(m, blockSum(s, scratch));
}

// The smallest K in {1, 2, 4, 8, 16} whose K x kRowThreads vectors hold a row of C elements
// (launch(std::integral_constant<int, K>) is called with it), or false when the row does not
// fit: C is not a multiple of the vector width, or is longer.
template <typename T, class Launch>
inline bool launchCachedRow(int64_t C, Launch launch) {
    constexpr int N = Vec<T>::N;
    if (C % N != 0) return false;
    const int64_t vecs = C / N;
    if (vecs <= kRowThreads * 1) launch(std::integral_constant<int, 1>{});
    else if (vecs <= kRowThreads * 2) launch(std::integral_constant<int, 2>{});
    else if (vecs <= kRowThreads * 4) launch(std::integral_constant<int, 4>{});
    else if (vecs <= kRowThreads * 8) launch(std::integral_constant<int, 8>{});
    else if (vecs <= kRowThreads * 16) launch(std::integral_constant<int, 16>{});
    else return false;
    return true;
}

}  // namespace reach_k

#endif
