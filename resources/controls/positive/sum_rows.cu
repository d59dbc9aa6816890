// Positive control: sum over the last dim, one block per row, fp32 accumulation.
#include <reach/kernels.h>

template <typename T>
__global__ void sumRowsKernel(const T* x, T* y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    float s = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += reach_to_float(xr[c]);
    s = reach_k::blockSum(s, scratch);
    if (threadIdx.x == 0) y[blockIdx.x] = reach_from_float<T>(s);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        sumRowsKernel<T><<<R, 512, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
