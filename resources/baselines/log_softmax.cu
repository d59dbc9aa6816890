// Reach baseline: log_softmax, row cached in registers, 16-byte vector access (reach/rows.h).
#include <reach/rows.h>

using reach_k::kRowThreads;

template <typename T, int K>
__global__ void __launch_bounds__(kRowThreads) cached(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    reach_k::RowFloats<T, K> row;
    row.load(xr, C);

    const float2 ms = reach_k::rowMaxAndSumExp([&](auto f) { reach_k::rowEach(row, C, f); }, scratch);
    const float m = ms.x, s = ms.y;
    float lse = m + logf(s);
    reach_k::rowStore(row, yr, C, [&](int k, int64_t, float* o) {
#pragma unroll
        for (int e = 0; e < row.N; ++e) o[e] = row.at(k, e) - lse;
    });
}

template <typename T>
__global__ void __launch_bounds__(kRowThreads) streaming(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;

    const float2 ms = reach_k::rowMaxAndSumExp([&](auto f) { reach_k::rowEachInMemory(xr, C, f); }, scratch);
    const float m = ms.x, s = ms.y;
    float lse = m + logf(s);
    for (int64_t c = threadIdx.x; c < C; c += kRowThreads) {
        float v = reach_to_float(xr[c]);
        yr[c] = reach_from_float<T>(v - lse);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        const T* x = (const T*)in[0].data;
        T* y = (T*)out[0].data;
        if (!reach_k::launchCachedRow<T>(C, [&](auto k) { cached<T, k()><<<unsigned(R), kRowThreads, 0, s>>>(x, y, C); }))
            streaming<T><<<unsigned(R), kRowThreads, 0, s>>>(x, y, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
