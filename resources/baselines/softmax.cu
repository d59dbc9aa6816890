// Reach baseline: softmax, row cached in registers, 16-byte vector access.
#include <reach/kernels.h>

// One block of 256 threads per row. When the row fits in registers (C a multiple of the vector
// width and at most 256 * 16 vectors) it is read once and written once; otherwise a streaming
// fallback re-reads the row (it stays in L2 for moderate C).
constexpr int kThreads = 256;

// The cached row is kept as raw 16-byte vectors (bf16 stays packed: half the registers of f32
// copies, so more blocks fit per SM and more loads are in flight) and widened on use.
#define FOR_REG(stmt)                                                      \
    _Pragma("unroll") for (int k = 0; k < K; ++k) {                         \
        if ((k * kThreads + int(threadIdx.x)) * N < C) {                    \
            const T* el = reinterpret_cast<const T*>(&buf[k]);              \
            _Pragma("unroll") for (int e = 0; e < N; ++e) {                 \
                float v = reach_to_float(el[e]);                            \
                stmt;                                                       \
            }                                                               \
        }                                                                   \
    }
#define FOR_MEM(stmt)                                                      \
    for (int64_t c = threadIdx.x; c < C; c += kThreads) {                   \
        float v = reach_to_float(xr[c]);                                    \
        stmt;                                                               \
    }

template <typename T, int K>
__global__ void __launch_bounds__(kThreads) cached(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    using Raw = typename reach_k::Vec<T>::Raw;
    Raw buf[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        int64_t c = int64_t(k * kThreads + threadIdx.x) * N;
        if (c < C) buf[k] = __ldcs(reinterpret_cast<const Raw*>(xr + c));
    }

    float m = -FLT_MAX;
    FOR_REG(m = fmaxf(m, v));
    m = reach_k::blockMax(m, scratch);
    float s = 0;
    FOR_REG(s += __expf(v - m));
    s = reach_k::blockSum(s, scratch);
    float inv = 1.f / s;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        int64_t c0 = int64_t(k * kThreads + threadIdx.x) * N;
        if (c0 >= C) continue;
        float o[N];
        const T* el = reinterpret_cast<const T*>(&buf[k]);
#pragma unroll
        for (int e = 0; e < N; ++e) o[e] = __expf(reach_to_float(el[e]) - m) * inv;
        reach_k::storeVec(yr + c0, o);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) streaming(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;

    float m = -FLT_MAX;
    FOR_MEM(m = fmaxf(m, v));
    m = reach_k::blockMax(m, scratch);
    float s = 0;
    FOR_MEM(s += __expf(v - m));
    s = reach_k::blockSum(s, scratch);
    float inv = 1.f / s;
    for (int64_t c = threadIdx.x; c < C; c += kThreads) {
        float v = reach_to_float(xr[c]);
        yr[c] = reach_from_float<T>(__expf(v - m) * inv);
    }
}

// Long rows with few of them (KernelBench's 64 x 393216) would leave most SMs idle with one block
// per row: split each row over G blocks (at most 8 per SM in all: one wave). Pass 1: per-chunk
// online (max, sum) over 16-byte vectors, kSplitU of them in flight per thread; pass 2: each
// block merges its row's G partials and writes its chunk. Pass 2 walks the chunks in reverse
// order, so it starts on the ones pass 1 read last, which are still in L2. C must be a multiple
// of the vector width.
constexpr int kSplitU = 4;

template <typename T>
__global__ void __launch_bounds__(kThreads) splitStats(const T* __restrict__ x, float2* __restrict__ part, int64_t C, int G) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float sm[32], ss[32];
    int64_t row = blockIdx.x / G, g = blockIdx.x % G;
    int64_t nv = C / N, chunk = (nv + G - 1) / G, v0 = g * chunk, v1 = v0 + chunk < nv ? v0 + chunk : nv;
    const T* xr = x + row * C;
    float m = -FLT_MAX, s = 0;
    for (int64_t v = v0 + threadIdx.x; v < v1; v += kSplitU * kThreads) {
        float t[kSplitU][N];
#pragma unroll
        for (int u = 0; u < kSplitU; ++u) {
            int64_t vv = v + u * kThreads;
            if (vv < v1)
                reach_k::loadVec(xr + vv * N, t[u]);
            else
#pragma unroll
                for (int e = 0; e < N; ++e) t[u][e] = -FLT_MAX;
        }
        float lm = m;
#pragma unroll
        for (int u = 0; u < kSplitU; ++u)
#pragma unroll
            for (int e = 0; e < N; ++e) lm = fmaxf(lm, t[u][e]);
        s *= __expf(m - lm);
#pragma unroll
        for (int u = 0; u < kSplitU; ++u)
#pragma unroll
            for (int e = 0; e < N; ++e) s += __expf(t[u][e] - lm);
        m = lm;
    }
    float bm = reach_k::blockMax(m, sm);
    float bs = reach_k::blockSum(m == -FLT_MAX ? 0.f : s * __expf(m - bm), ss);
    if (threadIdx.x == 0) part[blockIdx.x] = make_float2(bm, bs);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) splitWrite(const T* __restrict__ x, const float2* __restrict__ part, T* __restrict__ y, int64_t C, int G) {
    constexpr int N = reach_k::Vec<T>::N;
    __shared__ float stat[2];
    int64_t bid = gridDim.x - 1 - blockIdx.x;
    int64_t row = bid / G, g = bid % G;
    if (threadIdx.x == 0) {
        float m = -FLT_MAX, s = 0;
        for (int k = 0; k < G; ++k) m = fmaxf(m, part[row * G + k].x);
        for (int k = 0; k < G; ++k) s += part[row * G + k].y * __expf(part[row * G + k].x - m);
        stat[0] = m;
        stat[1] = 1.f / s;
    }
    __syncthreads();
    float m = stat[0], inv = stat[1];
    int64_t nv = C / N, chunk = (nv + G - 1) / G, v0 = g * chunk, v1 = v0 + chunk < nv ? v0 + chunk : nv;
    const T* xr = x + row * C;
    T* yr = y + row * C;
    for (int64_t v = v0 + threadIdx.x; v < v1; v += kSplitU * kThreads) {
        float t[kSplitU][N];
#pragma unroll
        for (int u = 0; u < kSplitU; ++u)
            if (v + u * kThreads < v1) reach_k::loadVec(xr + (v + u * kThreads) * N, t[u]);
#pragma unroll
        for (int u = 0; u < kSplitU; ++u) {
            if (v + u * kThreads >= v1) continue;
#pragma unroll
            for (int e = 0; e < N; ++e) t[u][e] = __expf(t[u][e] - m) * inv;
            reach_k::storeVec(yr + (v + u * kThreads) * N, t[u]);
        }
    }
}

// Scratch for the split path's partials, grown once and kept (no allocation per call after).
static float2* g_part = nullptr;
static size_t g_partCount = 0;

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        constexpr int N = reach_k::Vec<T>::N;
        int64_t vecs = C / N;
        bool fits = C % N == 0;
        const T* x = (const T*)in[0].data;
        T* y = (T*)out[0].data;
#define LAUNCH(KK) cached<T, KK><<<unsigned(R), kThreads, 0, s>>>(x, y, C)
        if (fits && vecs <= kThreads * 1) LAUNCH(1);
        else if (fits && vecs <= kThreads * 2) LAUNCH(2);
        else if (fits && vecs <= kThreads * 4) LAUNCH(4);
        else if (fits && vecs <= kThreads * 8) LAUNCH(8);
        else if (fits && vecs <= kThreads * 16) LAUNCH(16);
        else if (fits && R < 8 * 132 && C >= 65536) {
            // One wave (8 blocks of 256 on each of 132 SMs). Rounding G up (17 for 64 rows) left a
            // second, nearly empty wave that cost as much as the first: 56.6 -> 53.0 us.
            int G = int(8 * 132 / R);
            size_t need = size_t(R) * G;
            if (need > g_partCount) {
                if (g_part) cudaFree(g_part);
                if (cudaMalloc(&g_part, need * sizeof(float2)) != cudaSuccess) return 2;
                g_partCount = need;
            }
            splitStats<T><<<unsigned(R * G), kThreads, 0, s>>>(x, g_part, C, G);
            splitWrite<T><<<unsigned(R * G), kThreads, 0, s>>>(x, g_part, y, C, G);
        } else streaming<T><<<unsigned(R), kThreads, 0, s>>>(x, y, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
