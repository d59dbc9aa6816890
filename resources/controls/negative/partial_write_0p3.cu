// Negative control: computes a correct softmax but writes only the first 0.3% of the output
// buffer (the study's 283x "speedup"). Caught by the written fraction.
#include <reach/kernels.h>

template <typename T>
__global__ void softmaxPrefix(const T* x, T* y, int64_t C, int64_t limit) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    float m = -FLT_MAX;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = fmaxf(m, reach_to_float(xr[c]));
    m = reach_k::blockMax(m, scratch);
    float s = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += __expf(reach_to_float(xr[c]) - m);
    s = reach_k::blockSum(s, scratch);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x)
        if (blockIdx.x * C + c < limit) yr[c] = reach_from_float<T>(__expf(reach_to_float(xr[c]) - m) / s);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    int64_t limit = R * C * 3 / 1000;
    int64_t rows = (limit + C - 1) / C;  // only the rows that hold the prefix are computed
    auto go = [&](auto t) {
        using T = decltype(t);
        softmaxPrefix<T><<<rows, 512, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C, limit);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
