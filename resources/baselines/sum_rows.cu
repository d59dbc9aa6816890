// Reach baseline: sum_rows, one block of 256 threads per row, 16-byte vector loads.
#include <reach/kernels.h>

template <typename T>
__global__ void __launch_bounds__(256) sumRows(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    float s = 0;
    int64_t nv = (C % N == 0) ? C / N : 0;
    for (int64_t i = threadIdx.x; i < nv; i += blockDim.x) {
        float v[N];
        reach_k::loadVec(xr + i * N, v);
#pragma unroll
        for (int k = 0; k < N; ++k) s += v[k];
    }
    for (int64_t c = nv * N + threadIdx.x; c < C; c += blockDim.x) s += reach_to_float(xr[c]);
    s = reach_k::blockSum(s, scratch);
    if (threadIdx.x == 0) y[blockIdx.x] = reach_from_float<T>(s);
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        sumRows<T><<<unsigned(R), 256, 0, s>>>((const T*)in[0].data, (T*)out[0].data, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
