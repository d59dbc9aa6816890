// Positive control: log_softmax over the last dim, one block per row, fp32 math.
#include <reach/kernels.h>

template <typename T>
__global__ void logSoftmaxKernel(const T* x, T* y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    float m = -FLT_MAX;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = fmaxf(m, reach_to_float(xr[c]));
    m = reach_k::blockMax(m, scratch);
    float s = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += expf(reach_to_float(xr[c]) - m);
    s = reach_k::blockSum(s, scratch);
    float lse = m + logf(s);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x)
        yr[c] = reach_from_float<T>(reach_to_float(xr[c]) - lse);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        logSoftmaxKernel<T><<<R, 512, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
