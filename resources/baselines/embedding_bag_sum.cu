// Reach baseline: embedding_bag_sum. When a row is at most 32 16-byte vectors: the pooled-gather
// pipeline of reach/gather.h, one warp per contiguous range of bags holding an equal share of the
// lookups. Otherwise one warp per bag.
// Measured on the H200 (docs/measurements/2026-11-29-long-row-softmax-and-the-gathers.md), 8M x 128 f32 table, 1M lookups: 152.1 to
// 156.3 us over twelve runs (floor 128; 1.18-1.22x), DRAM at 78 % of peak. The previous kernel (a
// warp per bag, 8 rows gathered at once in registers) ran 158.7 us; with units of equal bag
// counts instead of equal lookups, 153.7 to 155.9 us; with part of the lookups handed out
// dynamically, 154.4 us or more. Random 512-byte rows are not slower than sequential ones here
// (reach/gather.h); the gather as such is 1.10x a copy of the same bytes.
#include <reach/gather.h>

// Unit u of nUnits: the bags that start in lookups [u * L / nUnits, (u + 1) * L / nUnits), so
// every warp streams the same number of rows whatever the bag lengths. Called by a whole warp.
struct EmbUnits {
    const void* w;
    const int64_t* idx;
    const int64_t* off;
    void* y;
    int64_t nUnits, B, L;
    // First bag b with off[b] >= target (B when none): 32 offsets around the guess that bags are
    // evenly spread, read in one round; a binary search when the guess misses.
    __device__ int64_t firstBag(int64_t target) const {
        const int lane = threadIdx.x & 31;
        const int64_t g = target * B / L, p = g - 15 + lane;
        const bool ge = p >= B || (p >= 0 && off[p] >= target);
        const unsigned m = __ballot_sync(0xffffffffu, ge);
        if (m != 0 && m != 0xffffffffu) return g - 15 + __ffs(m) - 1;
        if (m == 0xffffffffu && g - 15 <= 0) return 0;
        int64_t lo = 0, hi = B;  // off[lo - 1] < target <= off[hi], as far as known
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (off[mid] >= target) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }
    __device__ reach_k::GatherUnit operator()(int64_t u) const {
        const int64_t b0 = u == 0 ? 0 : firstBag(u * L / nUnits);
        const int64_t b1 = u + 1 == nUnits ? B : firstBag((u + 1) * L / nUnits);
        return {w, idx, b0, b1, y};
    }
};

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
    if (B == 0 || D == 0) return 0;
    auto go = [&](auto t) {
        using T = decltype(t);
        constexpr int N = reach_k::Vec<T>::N;
        if (D % N == 0 && D / N <= 32) {
            // G = 32 lanes per row whatever D: bags of any length then never split a copy.
            auto kernel = reach_k::gatherSumPipe<T, 32, reach_k::BagsByOffsets, EmbUnits>;
            const int smem = reach_k::kGatherSmemBytes;
            static bool attr = false;
            if (!attr && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) return 2;
            attr = true;
            int64_t units = reach_k::gatherResidentWarps() < L ? reach_k::gatherResidentWarps() : (L > 0 ? L : 1);
            int64_t warpsPerBlock = reach_k::kGatherThreads / 32;
            kernel<<<unsigned((units + warpsPerBlock - 1) / warpsPerBlock), reach_k::kGatherThreads, smem, s>>>(
                reach_k::BagsByOffsets{(const int64_t*)in[2].data, B, L},
                EmbUnits{in[0].data, (const int64_t*)in[1].data, (const int64_t*)in[2].data, out[0].data, units, B, L}, units, D, D);
            return 0;
        }
        bagWarp<T><<<unsigned((B + 7) / 8), 256, 0, s>>>((const T*)in[0].data, (const int64_t*)in[1].data,
                                                         (const int64_t*)in[2].data, (T*)out[0].data, L, B, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
