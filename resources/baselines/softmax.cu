// Reach baseline: softmax, 16-byte vector access; rows cached in registers, longer rows held in a
// thread-block cluster's shared memory (sm_90), a two-pass split or a streaming fallback.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <reach/rows.h>

// One block of 256 threads per row when the row fits in registers (reach/rows.h; kept as raw
// 16-byte vectors, bf16 stays packed): read once and written once. Longer rows: see
// clusterRows, then splitStats / splitWrite; the streaming kernel re-reads the row (it stays in
// L2 for moderate C) when nothing else applies.
constexpr int kThreads = reach_k::kRowThreads;

template <typename T, int K>
__global__ void __launch_bounds__(kThreads) cached(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;
    reach_k::RowRaw<T, K> row;
    row.load(xr, C);

    const float2 ms = reach_k::rowMaxAndSumExp([&](auto f) { reach_k::rowEach(row, C, f); }, scratch);
    const float m = ms.x, s = ms.y;
    float inv = 1.f / s;
    reach_k::rowStore(row, yr, C, [&](int k, int64_t, float* o) {
#pragma unroll
        for (int e = 0; e < row.N; ++e) o[e] = __expf(row.at(k, e) - m) * inv;
    });
}

template <typename T>
__global__ void __launch_bounds__(kThreads) streaming(const T* __restrict__ x, T* __restrict__ y, int64_t C) {
    __shared__ float scratch[32];
    const T* xr = x + blockIdx.x * C;
    T* yr = y + blockIdx.x * C;

    const float2 ms = reach_k::rowMaxAndSumExp([&](auto f) { reach_k::rowEachInMemory(xr, C, f); }, scratch);
    const float m = ms.x, s = ms.y;
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

// Long rows on sm_90: a thread-block cluster of K blocks holds one row on chip (each block a
// 1/K chunk in shared memory), so x is read from DRAM exactly once and y written once, the
// minimum traffic. The chunk is loaded with cp.async in commit groups (stages) of KS vectors per
// thread; as each stage lands, every thread takes the max m_g of its own vectors in it (held in
// registers) and overwrites them in place with e = exp(x - m_g) (f16 for bf16 input, same 2
// bytes; f32 for f32), keeping (m_g, sum e): one exp per element. The cluster's blocks merge
// their (max, sum) through distributed shared memory; the write pass is y = e * exp(m_g - M) / S,
// and each slot, as soon as its y is stored, is refilled by the same thread with the next row's
// vector (persistent clusters, row += gridClusters), so the next row's reads overlap this row's
// writes and DRAM never waits for a whole cluster to finish a row.
// Measured on the H200 (docs/measurements/2026-11-29-long-row-softmax-and-the-gathers.md), 64 x 393216 bf16 / 512 x 393216 bf16:
// this version 37.9 / 229.4 us (floor 24.3 / 194; a same-bytes copy 29.1 / 193.7). Before the
// refill overlap and the stage-wise registers: 46.9 / 280 us, of which 48 us at 512 rows was
// the per-element instruction count (29 instructions per element; a version with the exp left
// out ran 231 us) and the rest the row-by-row lock step. Did no better: one block of 1024 per SM
// (56 us), double-buffered rows (58 / 338), clusters of 16 with 4 blocks per SM (44 / 294), the
// row slice in registers with one cluster per row (53 / 301), an atomic-ticket single kernel
// (76 / 538), odd clusters started late (274 us at 512 rows), exp in packed f16 (234 us).
// Largest chunk one block holds: two blocks of 512 threads per SM, 6 stages of 2 vectors each.
constexpr int64_t kMaxChunkBytes = 96 * 1024;
constexpr int kClusterThreads = 512;  // two blocks per SM: at most 64 registers each
constexpr int KS = 2;  // vectors per thread per stage (more spilled at 64 registers)

__device__ __forceinline__ void cpAsync16(void* smem, const void* gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cpCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int n>
__device__ __forceinline__ void cpWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory"); }

// Merge two (max, sum-of-exp) pairs; -FLT_MAX with sum 0 is the empty pair.
__device__ __forceinline__ float2 mergeStat(float2 a, float2 b) {
    float m = fmaxf(a.x, b.x);
    return make_float2(m, a.y * __expf(a.x - m) + b.y * __expf(b.x - m));
}
__device__ __forceinline__ float2 warpMerge(float2 v) {
    for (int o = 16; o > 0; o >>= 1) {
        float2 w = make_float2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
        v = mergeStat(v, w);
    }
    return v;
}

// The in-place exp values: same width as T, so the chunk is overwritten element by element.
template <typename T>
struct ExpStore;
template <>
struct ExpStore<__nv_bfloat16> {
    using E = __half;
    static __device__ __forceinline__ E to(float v) { return __float2half_rn(v); }
    static __device__ __forceinline__ float from(E v) { return __half2float(v); }
};
template <>
struct ExpStore<float> {
    using E = float;
    static __device__ __forceinline__ E to(float v) { return v; }
    static __device__ __forceinline__ float from(E v) { return v; }
};

__device__ __forceinline__ float ex2ftz(float v) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
}
// Wait until at most `pending` commit groups are still in flight (an immediate in PTX).
__device__ __forceinline__ void cpWaitPending(int pending) {
    switch (pending) {
    case 0: cpWait<0>(); break;
    case 1: cpWait<1>(); break;
    case 2: cpWait<2>(); break;
    case 3: cpWait<3>(); break;
    case 4: cpWait<4>(); break;
    case 5: cpWait<5>(); break;
    default: cpWait<6>(); break;
    }
}

// kStages commit groups of KS vectors per thread (compile time, so the loops unroll and a stage's
// vectors sit in registers between the max and the exp).
template <typename T, int kStages>
__global__ void __launch_bounds__(kClusterThreads, 2) clusterRows(const T* __restrict__ x, T* __restrict__ y, int64_t R, int64_t C, int64_t rowStep) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    constexpr int N = reach_k::Vec<T>::N;
    constexpr float kLog2e = 1.4426950408889634f;
    using Raw = typename reach_k::Vec<T>::Raw;
    using X = ExpStore<T>;
    using E = typename X::E;
    extern __shared__ __align__(16) unsigned char smraw[];
    Raw* chunk = reinterpret_cast<Raw*>(smraw);
    __shared__ float2 partial[2];  // this block's (max, sum), by row parity: read by the cluster
    __shared__ float2 warpPart[kClusterThreads / 32];
    __shared__ float2 rowStat;
    cg::cluster_group cluster = cg::this_cluster();
    const int K = int(cluster.num_blocks()), rank = int(cluster.block_rank());
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int nv = int(C / N / K);
    int64_t row = blockIdx.x / K;
    if (row < R) {
        const Raw* src = reinterpret_cast<const Raw*>(x + row * C) + int64_t(rank) * nv;
#pragma unroll
        for (int st = 0; st < kStages; ++st) {
#pragma unroll
            for (int j = 0; j < KS; ++j) {
                const int v = tid + (st * KS + j) * kClusterThreads;
                if (v < nv) cpAsync16(chunk + v, src + v);
            }
            cpCommit();
        }
    }
    int parity = 0;
    for (; row < R; row += rowStep, parity ^= 1) {
        float gm[kStages];
        float2 mine = make_float2(-FLT_MAX, 0.f);
#pragma unroll
        for (int st = 0; st < kStages; ++st) {
            cpWaitPending(kStages - 1 - st);
            Raw r[KS];
            float m = -FLT_MAX;
#pragma unroll
            for (int j = 0; j < KS; ++j) {
                const int v = tid + (st * KS + j) * kClusterThreads;
                if (v >= nv) continue;
                r[j] = chunk[v];
                const T* el = reinterpret_cast<const T*>(&r[j]);
#pragma unroll
                for (int e = 0; e < N; ++e) m = fmaxf(m, reach_to_float(el[e]));
            }
            float s = 0.f;
#pragma unroll
            for (int j = 0; j < KS; ++j) {
                const int v = tid + (st * KS + j) * kClusterThreads;
                if (v >= nv) continue;
                Raw o;
                const T* el = reinterpret_cast<const T*>(&r[j]);
                E* eo = reinterpret_cast<E*>(&o);
#pragma unroll
                for (int e = 0; e < N; ++e) {
                    float ex = ex2ftz((reach_to_float(el[e]) - m) * kLog2e);
                    s += ex;
                    eo[e] = X::to(ex);
                }
                chunk[v] = o;
            }
            gm[st] = m;
            if (m > -FLT_MAX) mine = mergeStat(mine, make_float2(m, s));
        }
        float2 red = warpMerge(mine);
        if (lane == 0) warpPart[warp] = red;
        __syncthreads();
        if (warp == 0) {
            float2 v = lane < kClusterThreads / 32 ? warpPart[lane] : make_float2(-FLT_MAX, 0.f);
            v = warpMerge(v);
            if (lane == 0) partial[parity] = v;
        }
        cluster.sync();  // every block's partial for this row is visible cluster-wide
        if (warp == 0) {
            float2 v = make_float2(-FLT_MAX, 0.f);
            if (lane < K) v = *cluster.map_shared_rank(&partial[parity], lane);
            v = warpMerge(v);
            if (lane == 0) rowStat = make_float2(v.x, 1.f / v.y);
        }
        __syncthreads();
        float scale[kStages];
#pragma unroll
        for (int st = 0; st < kStages; ++st) scale[st] = __expf(gm[st] - rowStat.x) * rowStat.y;
        const int64_t next = row + rowStep;
        Raw* dst = reinterpret_cast<Raw*>(y + row * C) + int64_t(rank) * nv;
        const Raw* nsrc = reinterpret_cast<const Raw*>(x + (next < R ? next : row) * C) + int64_t(rank) * nv;
        // Write this row stage by stage; each slot, once its value is stored, is refilled at once
        // with the next row's vector (same thread, same slot: no barrier), so the next row's reads
        // overlap this row's writes.
#pragma unroll
        for (int st = 0; st < kStages; ++st) {
#pragma unroll
            for (int j = 0; j < KS; ++j) {
                const int v = tid + (st * KS + j) * kClusterThreads;
                if (v >= nv) continue;
                Raw r = chunk[v], o;
                const E* el = reinterpret_cast<const E*>(&r);
                T* eo = reinterpret_cast<T*>(&o);
#pragma unroll
                for (int e = 0; e < N; ++e) eo[e] = reach_from_float<T>(X::from(el[e]) * scale[st]);
                __stcs(dst + v, o);
                if (next < R) cpAsync16(chunk + v, nsrc + v);
            }
            cpCommit();
        }
    }
    cluster.sync();  // no block may exit while another can still read its `partial`
#endif
}

// Cluster size, kernel and resident clusters for this row length, or K = 0 when the path does not
// apply (pre-sm_90 device, chunks not vector-aligned or too large for K <= 8). Cached: reach_run
// is called in the timed loop and must not query the device each time.
template <typename T>
using RowKernel = void (*)(const T*, T*, int64_t, int64_t, int64_t);
template <typename T>
struct ClusterPlan {
    int K = 0, clusters = 0;
    size_t smem = 0;
    RowKernel<T> fn = nullptr;
};
template <typename T>
static RowKernel<T> clusterKernel(int stages) {
    switch (stages) {
    case 1: return clusterRows<T, 1>;
    case 2: return clusterRows<T, 2>;
    case 3: return clusterRows<T, 3>;
    case 4: return clusterRows<T, 4>;
    case 5:  // 5 stages spill at 64 registers; 6 with the last one predicated off do not
    case 6: return clusterRows<T, 6>;
    default: return nullptr;
    }
}
template <typename T>
static ClusterPlan<T> clusterPlan(int64_t C) {
    static int64_t s_C = -1;
    static ClusterPlan<T> s_plan;
    if (s_C == C) return s_plan;
    s_C = C;
    s_plan = ClusterPlan<T>{};
    int dev = 0, major = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    constexpr int N = reach_k::Vec<T>::N;
    if (major < 9 || C % N != 0) return s_plan;
    for (int K = 1; K <= 8; K *= 2) {
        if (C % (int64_t(K) * N) != 0) break;
        size_t bytes = size_t(C) * sizeof(T) / K;
        if (int64_t(bytes) > kMaxChunkBytes) continue;
        const int64_t nv = C / N / K, perThread = (nv + kClusterThreads - 1) / kClusterThreads;
        RowKernel<T> fn = clusterKernel<T>(int((perThread + KS - 1) / KS));
        if (!fn) return s_plan;
        if (cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) != cudaSuccess) return s_plan;
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = unsigned(K);
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(unsigned(K));
        cfg.blockDim = dim3(kClusterThreads);
        cfg.dynamicSmemBytes = bytes;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, fn, &cfg) != cudaSuccess || n < 1) {
            cudaGetLastError();
            return s_plan;
        }
        s_plan.K = K;
        s_plan.clusters = n;
        s_plan.smem = bytes;
        s_plan.fn = fn;
        return s_plan;
    }
    return s_plan;
}

template <typename T>
static bool launchCluster(const T* x, T* y, int64_t R, int64_t C, cudaStream_t s) {
    ClusterPlan<T> p = clusterPlan<T>(C);
    if (p.K == 0) return false;
    int64_t clusters = R < p.clusters ? R : p.clusters;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(p.K);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(unsigned(clusters * p.K));
    cfg.blockDim = dim3(unsigned(kClusterThreads));
    cfg.dynamicSmemBytes = p.smem;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, p.fn, x, y, R, C, clusters) == cudaSuccess;
}

// Scratch for the split path's partials, grown once and kept (no allocation per call after).
static float2* g_part = nullptr;
static size_t g_partCount = 0;

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t R = in[0].shape[0], C = in[0].shape[1];
    auto go = [&](auto t) {
        using T = decltype(t);
        constexpr int N = reach_k::Vec<T>::N;
        bool fits = C % N == 0;
        const T* x = (const T*)in[0].data;
        T* y = (T*)out[0].data;
        if (reach_k::launchCachedRow<T>(C, [&](auto k) { cached<T, k()><<<unsigned(R), kThreads, 0, s>>>(x, y, C); }))
            return 0;
        if (fits && launchCluster<T>(x, y, R, C, s)) return 0;
        if (fits && R < 8 * 132 && C >= 65536) {
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
            return 0;
        }
        streaming<T><<<unsigned(R), kThreads, 0, s>>>(x, y, C);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
