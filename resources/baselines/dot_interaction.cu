// Reach baseline: dot_interaction. Each block handles 4 batch rows, staged in shared memory as
// float with a padded row stride (D + 1: conflict-free), one thread per (row, pair) with the
// pair index decoded from a small table.
#include <reach/kernels.h>

constexpr int kRows = 4;

template <typename T>
__global__ void dotPairs(const T* __restrict__ x, T* __restrict__ y, int64_t B, int F, int D) {
    extern __shared__ float xs[];
    int stride = D + 1, NP = F * (F - 1) / 2;
    int64_t b0 = int64_t(blockIdx.x) * kRows;
    int rows = int(B - b0 < kRows ? B - b0 : kRows);
    for (int k = threadIdx.x; k < rows * F * D; k += blockDim.x) {
        int r = k / (F * D), rem = k % (F * D), f = rem / D, d = rem % D;
        xs[(r * F + f) * stride + d] = reach_to_float(x[(b0 + r) * F * D + rem]);
    }
    __syncthreads();
    for (int job = threadIdx.x; job < rows * NP; job += blockDim.x) {
        int r = job / NP, p = job % NP;
        int i = int((1.f + sqrtf(1.f + 8.f * p)) * 0.5f);
        while (i * (i - 1) / 2 > p) --i;
        while ((i + 1) * i / 2 <= p) ++i;
        int j = p - i * (i - 1) / 2;
        const float* xi = xs + (r * F + i) * stride;
        const float* xj = xs + (r * F + j) * stride;
        float acc = 0;
#pragma unroll 8
        for (int d = 0; d < D; ++d) acc = fmaf(xi[d], xj[d], acc);
        y[(b0 + r) * NP + p] = reach_from_float<T>(acc);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t B = in[0].shape[0];
    int F = int(in[0].shape[1]), D = int(in[0].shape[2]);
    size_t smem = size_t(kRows) * F * (D + 1) * sizeof(float);
    auto go = [&](auto t) {
        using T = decltype(t);
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(dotPairs<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        dotPairs<T><<<unsigned((B + kRows - 1) / kRows), 512, smem, s>>>((const T*)in[0].data,
                                                                          (T*)out[0].data, B, F, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
