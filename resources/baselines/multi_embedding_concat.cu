// Reach baseline: multi_embedding_concat fused in one kernel (all tables, lookups and the
// concatenation). When D is a multiple of the vector width: a group of g lanes (g = D's 16-byte
// vectors rounded up to a power of two, at most 32) per (batch row, table) job, 32 / g jobs per
// warp; the group loads the job's P indices at once, broadcasts them by shuffle and gathers up to
// kUnroll rows at once, so a job costs about one index and one row latency instead of P of each
// (DLRM-like rows of 64 bf16 are 8 vectors: the one-job-per-warp version left 24 lanes idle and
// was latency-bound at 23.5 us for a 5 us floor). The per-warp kernel below is the fallback.
#include <reach/kernels.h>

struct Tables {
    const void* w[64];
};

constexpr int kUnroll = 8;

template <typename T>
__global__ void __launch_bounds__(256) concatGroups(Tables tabs, const int64_t* __restrict__ idx, T* __restrict__ y,
                                                    int64_t NT, int64_t B, int64_t P, int64_t D, int g) {
    constexpr int N = reach_k::Vec<T>::N;
    const int lane = threadIdx.x & 31, sub = lane & (g - 1);
    const int64_t job = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / g;
    const bool live = job < B * NT;
    const int64_t b = live ? job / NT : 0, t = live ? job % NT : 0, nv = D / N;
    const T* w = (const T*)tabs.w[t];
    const int64_t* ix = idx + t * B * P + b * P;
    for (int64_t v0 = 0; v0 < nv; v0 += g) {
        const int64_t v = v0 + sub;
        const bool active = live && v < nv;
        float acc[N] = {};
        for (int64_t j0 = 0; j0 < P; j0 += g) {
            const int n = int(P - j0 < g ? P - j0 : g);
            long long mine = live && sub < n ? ix[j0 + sub] : 0;
            for (int j = 0; j < n; j += kUnroll) {
                float tv[kUnroll][N];
#pragma unroll
                for (int u = 0; u < kUnroll; ++u) {
                    long long r = __shfl_sync(0xffffffffu, mine, (j + u) & (g - 1), g);
                    if (j + u < n && active)
                        reach_k::loadVec(w + r * D + v * N, tv[u]);
                    else
#pragma unroll
                        for (int k = 0; k < N; ++k) tv[u][k] = 0.f;
                }
#pragma unroll
                for (int u = 0; u < kUnroll; ++u)
#pragma unroll
                    for (int k = 0; k < N; ++k) acc[k] += tv[u][k];
            }
        }
        if (active) reach_k::storeVec(y + b * NT * D + t * D + v * N, acc);
    }
}

template <typename T>
__global__ void concatWarp(Tables tabs, const int64_t* __restrict__ idx, T* __restrict__ y,
                           int64_t NT, int64_t B, int64_t P, int64_t D) {
    constexpr int N = reach_k::Vec<T>::N;
    int64_t job = blockIdx.x * int64_t(blockDim.x / 32) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (job >= B * NT) return;
    int64_t b = job / NT, t = job % NT;
    const T* w = (const T*)tabs.w[t];
    const int64_t* ix = idx + t * B * P + b * P;
    bool vec = D % N == 0;
    int64_t nv = vec ? D / N : D;
    T* yo = y + b * NT * D + t * D;
    for (int64_t v0 = lane; v0 < nv; v0 += 32) {
        float acc[N] = {};
        for (int64_t j = 0; j < P; ++j) {
            const T* row = w + ix[j] * D;
            if (vec) {
                float tv[N];
                reach_k::loadVec(row + v0 * N, tv);
#pragma unroll
                for (int k = 0; k < N; ++k) acc[k] += tv[k];
            } else {
                acc[0] += reach_to_float(row[v0]);
            }
        }
        if (vec)
            reach_k::storeVec(yo + v0 * N, acc);
        else
            yo[v0] = reach_from_float<T>(acc[0]);
    }
}

extern "C" int reach_run(const reach_tensor* in, int n_in, reach_tensor* out, int, cudaStream_t s) {
    int64_t NT = n_in - 1;
    if (NT > 64) return 1;
    const reach_tensor& ix = in[n_in - 1];
    int64_t D = in[0].shape[1], B = out[0].shape[0], P = ix.shape[1] / B;
    Tables tabs{};
    for (int t = 0; t < NT; ++t) tabs.w[t] = in[t].data;
    auto go = [&](auto tt) {
        using T = decltype(tt);
        constexpr int N = reach_k::Vec<T>::N;
        int64_t jobs = B * NT;
        if (D % N == 0) {
            int g = 1;
            while (g < 32 && g < D / N) g *= 2;
            int64_t threads = jobs * g;
            concatGroups<T><<<unsigned((threads + 255) / 256), 256, 0, s>>>(tabs, (const int64_t*)ix.data,
                                                                         (T*)out[0].data, NT, B, P, D, g);
            return 0;
        }
        concatWarp<T><<<unsigned((jobs + 7) / 8), 256, 0, s>>>(tabs, (const int64_t*)ix.data,
                                                               (T*)out[0].data, NT, B, P, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
