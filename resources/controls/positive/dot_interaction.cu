// Positive control: dot_interaction, one block per batch row; x[b] staged in shared memory,
// one thread per (i > j) pair in row-major order.
#include <reach/kernels.h>

template <typename T>
__global__ void dotKernel(const T* x, T* y, int64_t F, int64_t D) {
    extern __shared__ float xs[];
    const T* xb = x + blockIdx.x * F * D;
    for (int64_t k = threadIdx.x; k < F * D; k += blockDim.x) xs[k] = reach_to_float(xb[k]);
    __syncthreads();
    int64_t NP = F * (F - 1) / 2;
    for (int64_t p = threadIdx.x; p < NP; p += blockDim.x) {
        // Invert p = i*(i-1)/2 + j.
        int64_t i = 1;
        while ((i + 1) * i / 2 <= p) ++i;
        int64_t j = p - i * (i - 1) / 2;
        float acc = 0;
        for (int64_t d = 0; d < D; ++d) acc += xs[i * D + d] * xs[j * D + d];
        y[blockIdx.x * NP + p] = reach_from_float<T>(acc);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t B = in[0].shape[0], F = in[0].shape[1], D = in[0].shape[2];
    size_t smem = size_t(F * D) * sizeof(float);
    auto go = [&](auto t) {
        using T = decltype(t);
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(dotKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        dotKernel<T><<<B, 128, smem, s>>>((const T*)in[0].data, (T*)out[0].data, F, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
