// Reach baseline: embedding_bag_sum, one warp per bag, 16-byte vector gathers across D.
#include <reach/kernels.h>

template <typename T>
__global__ void bagWarp(const T* __restrict__ w, const int64_t* __restrict__ idx,
                        const int64_t* __restrict__ off, T* __restrict__ y, int64_t L, int64_t B,
                        int64_t D) {
    constexpr int N = reach_k::Vec<T>::N;
    int64_t b = blockIdx.x * int64_t(blockDim.x / 32) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (b >= B) return;
    int64_t s = off[b], e = b + 1 < B ? off[b + 1] : L;
    bool vec = D % N == 0;
    int64_t nv = vec ? D / N : D;
    for (int64_t v0 = lane; v0 < nv; v0 += 32) {
        float acc[N] = {};
        for (int64_t i = s; i < e; ++i) {
            const T* row = w + idx[i] * D;
            if (vec) {
                float t[N];
                reach_k::loadVec(row + v0 * N, t);
#pragma unroll
                for (int k = 0; k < N; ++k) acc[k] += t[k];
            } else {
                acc[0] += reach_to_float(row[v0]);
            }
        }
        if (vec)
            reach_k::storeVec(y + b * D + v0 * N, acc);
        else
            y[b * D + v0] = reach_from_float<T>(acc[0]);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t D = in[0].shape[1], L = in[1].shape[0], B = in[2].shape[0];
    auto go = [&](auto t) {
        using T = decltype(t);
        bagWarp<T><<<unsigned((B + 7) / 8), 256, 0, s>>>((const T*)in[0].data,
                                                         (const int64_t*)in[1].data,
                                                         (const int64_t*)in[2].data,
                                                         (T*)out[0].data, L, B, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
