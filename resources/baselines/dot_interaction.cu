// Reach baseline: dot_interaction. One block per batch row stages x[b] in shared memory; each
// warp computes whole pairs with its lanes split across D (conflict-free shared reads).
#include <reach/kernels.h>

template <typename T>
__global__ void __launch_bounds__(256) dotWarp(const T* __restrict__ x, T* __restrict__ y, int64_t F, int64_t D) {
    extern __shared__ float xs[];
    const T* xb = x + blockIdx.x * F * D;
    for (int64_t k = threadIdx.x; k < F * D; k += blockDim.x) xs[k] = reach_to_float(xb[k]);
    __syncthreads();
    int64_t NP = F * (F - 1) / 2;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int64_t i = 1 + warp; i < F; i += nw) {
        for (int64_t j = 0; j < i; ++j) {
            float acc = 0;
            for (int64_t d = lane; d < D; d += 32) acc += xs[i * D + d] * xs[j * D + d];
            acc = reach_k::warpSum(acc);
            if (lane == 0) y[blockIdx.x * NP + i * (i - 1) / 2 + j] = reach_from_float<T>(acc);
        }
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t B = in[0].shape[0], F = in[0].shape[1], D = in[0].shape[2];
    size_t smem = size_t(F * D) * sizeof(float);
    auto go = [&](auto t) {
        using T = decltype(t);
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(dotWarp<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        dotWarp<T><<<unsigned(B), 256, smem, s>>>((const T*)in[0].data, (T*)out[0].data, F, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
