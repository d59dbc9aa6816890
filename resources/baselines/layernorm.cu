// Reach baseline: layernorm (eps 1e-5), row cached in registers, 16-byte vector access
// (reach/rows.h).
#include <reach/rows.h>

using reach_k::kRowThreads;

template <typename T, int K>
__global__ void __launch_bounds__(kRowThreads) cached(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y, int64_t C) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    reach_k::RowFloats<T, K> row;
    row.load(xr, C);

    float s = 0;
    reach_k::rowEach(row, C, [&](float v) { s += v; });
    float mean = reach_k::blockSum(s, scratch) / C;
    float q = 0;
    reach_k::rowEach(row, C, [&](float v) { q += (v - mean) * (v - mean); });
    float rstd = rsqrtf(reach_k::blockSum(q, scratch) / C + 1e-5f);
    reach_k::rowStore(row, yr, C, [&](int k, int64_t c0, float* o) {
        float wv[N];
        reach_k::loadVec(w + c0, wv);
        float bv[N];
        reach_k::loadVec(b + c0, bv);
#pragma unroll
        for (int e = 0; e < N; ++e) o[e] = (row.at(k, e) - mean) * rstd * wv[e] + bv[e];
    });
}

template <typename T>
__global__ void __launch_bounds__(kRowThreads) streaming(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;

    float s = 0;
    reach_k::rowEachInMemory(xr, C, [&](float v) { s += v; });
    float mean = reach_k::blockSum(s, scratch) / C;
    float q = 0;
    reach_k::rowEachInMemory(xr, C, [&](float v) { q += (v - mean) * (v - mean); });
    float rstd = rsqrtf(reach_k::blockSum(q, scratch) / C + 1e-5f);
    for (int64_t c = threadIdx.x; c < C; c += kRowThreads) {
        float v = reach_to_float(xr[c]);
        yr[c] = reach_from_float<T>((v - mean) * rstd * reach_to_float(w[c]) + reach_to_float(b[c]));
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        const T* x = (const T*)in[0].data;
        const T* w = (const T*)in[1].data;
        const T* b = (const T*)in[2].data;
        T* y = (T*)out[0].data;
        if (!reach_k::launchCachedRow<T>(C, [&](auto k) { cached<T, k()><<<unsigned(R), kRowThreads, 0, s>>>(x, w, b, y, C); }))
            streaming<T><<<unsigned(R), kRowThreads, 0, s>>>(x, w, b, y, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
