// Reach baseline: cumsum in one pass. When C is a multiple of the vector width: cumsumWarps (one
// block of 4 warps per row, 16-byte loads, register scans, one barrier per tile). Otherwise
// (cumsumRow below): one block of 256 threads per row walks it in tiles of
// 256 x 16 elements: coalesced loads into padded shared memory (conflict-free transpose), a
// register scan of 16 contiguous elements per thread, a block scan of the thread totals, and
// coalesced stores back through shared memory.
#include <reach/kernels.h>

constexpr int kThreads = 256;
constexpr int kSeg = 16;
constexpr int kTile = kThreads * kSeg;

constexpr int kBatch = 8;
constexpr int kRowWarps = 4;

// One block of kRowWarps warps per row, walking it in tiles of kRowWarps x 32 x kBatch vectors:
// every warp loads its kBatch vectors per lane at once, scans them in registers (per lane, then
// across the warp by shuffles), and the warps' totals are combined through shared memory.
template <typename T>
__global__ void __launch_bounds__(kRowWarps * 32) cumsumWarps(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float totals[2][kRowWarps];
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    int64_t nv = C / N;
    float carry = 0;
    int parity = 0;
    for (int64_t t0 = 0; t0 < nv; t0 += kRowWarps * 32 * kBatch, parity ^= 1) {
        int64_t w0 = t0 + warp * 32 * kBatch;
        float t[kBatch][N];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            int64_t v = w0 + u * 32 + lane;
            if (v < nv)
                reach_k::loadVec(xr + v * N, t[u]);
            else
#pragma unroll
                for (int k = 0; k < N; ++k) t[u][k] = 0.f;
        }
        float run = 0;  // this warp's running total within the tile
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
#pragma unroll
            for (int k = 1; k < N; ++k) t[u][k] += t[u][k - 1];
            float tot = t[u][N - 1], incl = tot;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                float n = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += n;
            }
            float add = run + (incl - tot);
#pragma unroll
            for (int k = 0; k < N; ++k) t[u][k] += add;
            run += __shfl_sync(0xffffffffu, incl, 31);
        }
        if (lane == 0) totals[parity][warp] = run;
        __syncthreads();  // double-buffered totals: one barrier per tile
        float before = carry, all = 0;
#pragma unroll
        for (int w = 0; w < kRowWarps; ++w) {
            float tw = totals[parity][w];
            if (w < warp) before += tw;
            all += tw;
        }
        carry += all;
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            int64_t v = w0 + u * 32 + lane;
            if (v < nv) {
#pragma unroll
                for (int k = 0; k < N; ++k) t[u][k] += before;
                reach_k::storeVec(yr + v * N, t[u]);
            }
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) cumsumRow(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float tile[kTile + kTile / 32];
    __shared__ float warpTotals[32];
    __shared__ float carryIn;
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0) carryIn = 0;
    for (int64_t base = 0; base < C; base += kTile) {
#pragma unroll
        for (int e = 0; e < kSeg; ++e) {
            int i = e * kThreads + t;
            tile[i + i / 32] = base + i < C ? reach_to_float(xr[base + i]) : 0.f;
        }
        __syncthreads();
        float v[kSeg], run = 0;
#pragma unroll
        for (int e = 0; e < kSeg; ++e) {
            int i = t * kSeg + e;
            run += tile[i + i / 32];
            v[e] = run;
        }
        float incl = run;
        for (int o = 1; o < 32; o <<= 1) {
            float n = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += n;
        }
        if (lane == 31) warpTotals[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            float w = lane < kThreads / 32 ? warpTotals[lane] : 0.f;
            for (int o = 1; o < 32; o <<= 1) {
                float n = __shfl_up_sync(0xffffffffu, w, o);
                if (lane >= o) w += n;
            }
            if (lane < kThreads / 32) warpTotals[lane] = w;
        }
        __syncthreads();
        float offset = carryIn + (incl - run) + (warp > 0 ? warpTotals[warp - 1] : 0.f);
#pragma unroll
        for (int e = 0; e < kSeg; ++e) {
            int i = t * kSeg + e;
            tile[i + i / 32] = offset + v[e];
        }
        __syncthreads();
#pragma unroll
        for (int e = 0; e < kSeg; ++e) {
            int i = e * kThreads + t;
            if (base + i < C) yr[base + i] = reach_from_float<T>(tile[i + i / 32]);
        }
        if (t == 0) carryIn += warpTotals[kThreads / 32 - 1];
        __syncthreads();
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        if (C % reach_k::Vec<T>::N == 0) {
            cumsumWarps<T><<<unsigned(R), kRowWarps * 32, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
            return 0;
        }
        cumsumRow<T><<<unsigned(R), kThreads, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
