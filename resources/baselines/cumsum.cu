// Reach baseline: cumsum in one pass. One block of 256 threads per row walks it in tiles of
// 256 x 16 elements: coalesced loads into padded shared memory (conflict-free transpose), a
// register scan of 16 contiguous elements per thread, a block scan of the thread totals, and
// coalesced stores back through shared memory.
#include <reach/kernels.h>

constexpr int kThreads = 256;
constexpr int kSeg = 16;
constexpr int kTile = kThreads * kSeg;

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
        cumsumRow<T><<<unsigned(R), kThreads, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
