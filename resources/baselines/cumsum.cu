// Reach baseline: cumsum in one pass. One block of 256 threads per row; each thread scans a
// contiguous segment in registers, a block scan of the segment totals gives its offset.
#include <reach/kernels.h>

constexpr int kThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kThreads) cumsumRow(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float warpTotals[32];
    __shared__ float carryIn;
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    int64_t seg = 32;  // elements per thread per tile
    int64_t tile = seg * kThreads;
    if (threadIdx.x == 0) carryIn = 0;
    __syncthreads();
    for (int64_t base = 0; base < C; base += tile) {
        int64_t c0 = base + threadIdx.x * seg;
        float v[32];
        float run = 0;
#pragma unroll
        for (int e = 0; e < 32; ++e) {
            int64_t c = c0 + e;
            run += c < C ? reach_to_float(xr[c]) : 0.f;
            v[e] = run;
        }
        // Exclusive scan of per-thread totals across the block.
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
            warpTotals[lane] = w;  // inclusive over warps
        }
        __syncthreads();
        float offset = carryIn + (incl - run) + (warp > 0 ? warpTotals[warp - 1] : 0.f);
#pragma unroll
        for (int e = 0; e < 32; ++e) {
            int64_t c = c0 + e;
            if (c < C) yr[c] = reach_from_float<T>(offset + v[e]);
        }
        __syncthreads();
        if (threadIdx.x == 0) carryIn += warpTotals[kThreads / 32 - 1];
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
