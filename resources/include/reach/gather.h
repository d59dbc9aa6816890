// Pooled row gathers for Reach's embedding baselines: y[bag] = sum of w[idx[i]] over the bag's
// lookups. Random rows are latency-bound long before DRAM is busy: a warp that waits for its
// indices, then for its rows, keeps too few bytes in flight. Here every warp streams a contiguous
// range of lookups through a ring of kGatherSlots shared-memory slots filled with cp.async (no
// registers held per row in flight), with the indices loaded 32 lookups ahead, so about
// 5 slots x 2 KB per warp and 160 KB per SM are always on their way.
// Measured on the H200 (tests/bench/gather_ceiling.cu, docs/measurements/2026-11-29-what-limits-the-gathers.md): with
// this ring, random rows cost no more than sequential ones (512-byte rows 3.75 TB/s either way,
// 128-byte rows 3.63 random and 3.72 sequential), 10-14 % below a copy of the same bytes; the
// bulk-copy engine (cp.async.bulk, one instruction per row) did the same for 512-byte rows and
// worse for 128-byte ones (2.6 TB/s).
#pragma once

#include <reach/kernels.h>

#ifdef __CUDACC__

namespace reach_k {

constexpr int kGatherThreads = 256;  // 8 warps
constexpr int kGatherBlocksPerSM = 2;
constexpr int kGatherSlots = 6;      // per warp; 6 x 2 KB x 8 warps = 96 KB: two blocks per SM
constexpr int kGatherRI = 4;         // 16-byte copies per lane per slot
constexpr int kIdxAhead = 4;         // blocks of 32 indices held per lane
constexpr int kGatherSmemBytes = kGatherThreads / 32 * kGatherSlots * kGatherRI * 32 * 16;

// Warps of these kernels that fit on the device at once, queried once (reach_run is called in
// the timed loop and must not query the device each time).
inline int64_t gatherResidentWarps() {
    static int64_t warps = 0;
    if (warps == 0) {
        int dev = 0, sms = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        warps = int64_t(sms) * kGatherBlocksPerSM * (kGatherThreads / 32);
    }
    return warps;
}

// A warp's share of the work: bags [b0, b1) of one table, whose lookups are the contiguous
// indices [start(b0), start(b1)). With G < 32, bags must not end inside one copy instruction of
// 32/G rows (G = 32 is always safe).
struct GatherUnit {
    const void* w;       // table
    const int64_t* idx;  // its index stream
    int64_t b0, b1;      // bags
    void* y;             // output of bag b: y + b * yStride (elements)
};

// Bag boundaries by offsets (embedding_bag_sum: bag b is [off[b], off[b+1]), the last ends at L).
struct BagsByOffsets {
    const int64_t* off;
    int64_t B, L;
    __device__ int64_t start(int64_t b) const { return b < B ? off[b] : L; }
};

__device__ __forceinline__ void gatherCp16(void* smem, const void* gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void gatherCommit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void gatherWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kGatherSlots - 1) : "memory"); }

// A lane's place in both kernels: G lanes per row (the row's 16-byte vectors, a power of two
// <= 32), so one copy instruction moves RPW = 32 / G rows and a slot SR of them; `cls` is the row
// of a copy the lane moves, `vec` its vector in that row, `ring` its warp's slots.
template <typename T, int G>
struct GatherLane {
    static constexpr int N = Vec<T>::N, RPW = 32 / G, SR = RPW * kGatherRI;
    static_assert(SR <= 32 && 32 % SR == 0, "a slot's rows lie in one block of 32 indices");
    using Raw = typename Vec<T>::Raw;
    int lane, warp, cls, vec;
    Raw* ring;
    __device__ explicit GatherLane(unsigned char* smem)
        : lane(threadIdx.x & 31), warp(threadIdx.x >> 5), cls(lane / G), vec(lane % G),
          ring(reinterpret_cast<Raw*>(smem) + warp * (kGatherSlots * kGatherRI * 32)) {}
};

// Bags of any length (G = 32 lanes per row is always safe, see GatherUnit). Each lane reads back
// only the vectors it copied itself: no barrier.
// Units are handed out one per warp: unit(u) gives unit u of nUnits.
template <typename T, int G, class Bags, class Units>
__global__ void __launch_bounds__(kGatherThreads, kGatherBlocksPerSM) gatherSumPipe(Bags bags, Units units, int64_t nUnits, int64_t D, int64_t yStride) {
    using Lane = GatherLane<T, G>;
    using Raw = typename Lane::Raw;
    constexpr int N = Lane::N, RPW = Lane::RPW, SR = Lane::SR;
    extern __shared__ __align__(16) unsigned char gatherSmem[];
    const Lane me(gatherSmem);
    const int lane = me.lane, warp = me.warp, cls = me.cls, vec = me.vec;
    Raw* ring = me.ring;
    const int64_t u = blockIdx.x * int64_t(kGatherThreads / 32) + warp;
    if (u >= nUnits) return;
    const GatherUnit job = units(u);
    const T* w = static_cast<const T*>(job.w);
    const int64_t L0 = bags.start(job.b0), n = bags.start(job.b1) - L0;
    const int64_t* idx = job.idx + L0;
    const int64_t nSlots = (n + SR - 1) / SR;
    const bool active = vec * N < D;

    // Indices of lookups [32q, 32q + 32), one per lane, for q = curQ .. curQ + kIdxAhead - 1:
    // loaded that many blocks before their rows are copied, so their latency stays hidden.
    long long ib[kIdxAhead];
#pragma unroll
    for (int a = 0; a < kIdxAhead; ++a) ib[a] = a * 32 + lane < n ? idx[a * 32 + lane] : 0;
    int64_t curQ = 0;
    auto produce = [&](int64_t p) {
        const int64_t q = p * SR / 32;
        if (q != curQ) {  // slots are produced in order: q only ever steps by one
#pragma unroll
            for (int a = 0; a + 1 < kIdxAhead; ++a) ib[a] = ib[a + 1];
            const int64_t f = (q + kIdxAhead - 1) * 32 + lane;
            ib[kIdxAhead - 1] = f < n ? idx[f] : 0;
            curQ = q;
        }
        Raw* slot = ring + (p % kGatherSlots) * (kGatherRI * 32);
#pragma unroll
        for (int i = 0; i < kGatherRI; ++i) {
            const int64_t e = p * SR + i * RPW + cls;
            const long long r = __shfl_sync(0xffffffffu, ib[0], int(e & 31));
            if (e < n && active) gatherCp16(slot + i * 32 + lane, w + r * D + vec * N);
        }
    };

    // Bag ends (relative to L0), 32 bags per block, the next block loaded ahead like the indices.
    float acc[N] = {};
    int64_t bag = job.b0;
    long long endCur = job.b0 + 1 + lane <= job.b1 ? bags.start(job.b0 + 1 + lane) - L0 : 0;
    long long endNxt = job.b0 + 33 + lane <= job.b1 ? bags.start(job.b0 + 33 + lane) - L0 : 0;
    int64_t bagEnd = __shfl_sync(0xffffffffu, endCur, 0);
    T* y = static_cast<T*>(job.y);
    // Write every bag that ends at or before `pos` (empty bags get zeros).
    auto flush = [&](int64_t pos) {
        while (bag < job.b1 && bagEnd <= pos) {
#pragma unroll
            for (int k = 0; k < N; ++k)
#pragma unroll
                for (int o = G; o < 32; o <<= 1) acc[k] += __shfl_xor_sync(0xffffffffu, acc[k], o);
            if (cls == 0 && active) storeVec(y + bag * yStride + vec * N, acc);
#pragma unroll
            for (int k = 0; k < N; ++k) acc[k] = 0.f;
            ++bag;
            const int k = int((bag - job.b0) & 31);
            if (k == 0) {
                endCur = endNxt;
                const int64_t f = bag + 33 + lane;
                endNxt = f <= job.b1 ? bags.start(f) - L0 : 0;
            }
            bagEnd = __shfl_sync(0xffffffffu, endCur, k);
        }
    };

    for (int64_t p = 0; p < kGatherSlots - 1; ++p) {
        if (p < nSlots) produce(p);
        gatherCommit();
    }
    flush(0);
    for (int64_t p = 0; p < nSlots; ++p) {
        if (p + kGatherSlots - 1 < nSlots) produce(p + kGatherSlots - 1);
        gatherCommit();
        gatherWait();
        const Raw* slot = ring + (p % kGatherSlots) * (kGatherRI * 32);
#pragma unroll
        for (int i = 0; i < kGatherRI; ++i) {
            const int64_t e = p * SR + i * RPW;
            if (e + cls < n && active) {
                Raw raw = slot[i * 32 + lane];
                const T* el = reinterpret_cast<const T*>(&raw);
#pragma unroll
                for (int k = 0; k < N; ++k) acc[k] += reach_to_float(el[k]);
            }
            flush(e + RPW);
        }
    }
    flush(n);
}

// Fixed pooling P over NT tables (multi_embedding_concat): a warp takes bags [b0, b1) of every
// table, table after table, as one stream, so all warps move through the tables together and a
// row looked up twice in a table is usually still in L2 the second time (a table's lookups are a
// fraction of L2). Each table's part is padded to whole slots; a slot holds SR / P whole bags,
// summed by one lane class each straight from shared memory (no shuffles: P is small here, and a
// reduction per bag cost more than the copies). Needs SR % P == 0.
struct GatherTables {
    const void* w[64];
};

template <typename T, int G>
__global__ void __launch_bounds__(kGatherThreads, kGatherBlocksPerSM) pooledPipe(GatherTables tabs, const int64_t* __restrict__ idx, T* __restrict__ y, int NT, int64_t B, int P, int64_t D, int64_t bagsPerWarp) {
    using Lane = GatherLane<T, G>;
    using Raw = typename Lane::Raw;
    constexpr int N = Lane::N, RPW = Lane::RPW, SR = Lane::SR;
    extern __shared__ __align__(16) unsigned char gatherSmem[];
    const Lane me(gatherSmem);
    const int lane = me.lane, warp = me.warp, cls = me.cls, vec = me.vec;
    Raw* ring = me.ring;
    const int64_t b0 = (blockIdx.x * int64_t(kGatherThreads / 32) + warp) * bagsPerWarp;
    if (b0 >= B) return;
    const int64_t b1 = b0 + bagsPerWarp < B ? b0 + bagsPerWarp : B;
    const int segLen = int((b1 - b0) * P), slotsPerSeg = (segLen + SR - 1) / SR, segSpan = slotsPerSeg * SR;
    const int nSlots = NT * slotsPerSeg;
    const bool active = vec * N < D;
    // Index of stream position v (table v / segSpan), or -1 for the padding after a table's part.
    auto fetch = [&](int v) -> long long {
        const int t = v / segSpan, j = v - t * segSpan;
        return t < NT && j < segLen ? idx[(t * B + b0) * P + j] : -1;
    };
    long long ib[kIdxAhead];
#pragma unroll
    for (int a = 0; a < kIdxAhead; ++a) ib[a] = fetch(a * 32 + lane);
    int curQ = 0;
    auto produce = [&](int p) {
        const int q = p * SR / 32;
        if (q != curQ) {
#pragma unroll
            for (int a = 0; a + 1 < kIdxAhead; ++a) ib[a] = ib[a + 1];
            ib[kIdxAhead - 1] = fetch((q + kIdxAhead - 1) * 32 + lane);
            curQ = q;
        }
        const T* w = static_cast<const T*>(tabs.w[p / slotsPerSeg]);
        Raw* slot = ring + (p % kGatherSlots) * (kGatherRI * 32);
#pragma unroll
        for (int i = 0; i < kGatherRI; ++i) {
            const int e = p * SR + i * RPW + cls;
            const long long r = __shfl_sync(0xffffffffu, ib[0], e & 31);
            if (r >= 0 && active) gatherCp16(slot + i * 32 + lane, w + r * D + vec * N);
        }
    };

    for (int p = 0; p < kGatherSlots - 1; ++p) {
        if (p < nSlots) produce(p);
        gatherCommit();
    }
    for (int p = 0; p < nSlots; ++p) {
        if (p + kGatherSlots - 1 < nSlots) produce(p + kGatherSlots - 1);
        gatherCommit();
        gatherWait();
        __syncwarp();  // the slot's rows were copied by all lanes
        const Raw* slot = ring + (p % kGatherSlots) * (kGatherRI * 32);
        const int t = p / slotsPerSeg, jBase = (p - t * slotsPerSeg) * SR;
        for (int k = cls; k < SR / P; k += RPW) {
            const int j0 = jBase + k * P;
            if (j0 >= segLen || !active) continue;
            float acc[N] = {};
            for (int r = k * P; r < k * P + P; ++r) {
                Raw raw = slot[(r / RPW) * 32 + (r % RPW) * G + vec];
                const T* el = reinterpret_cast<const T*>(&raw);
#pragma unroll
                for (int c = 0; c < N; ++c) acc[c] += reach_to_float(el[c]);
            }
            storeVec(y + (b0 + j0 / P) * NT * D + t * D + vec * N, acc);
        }
        __syncwarp();  // every lane is done with the slot before it is refilled
    }
}

}  // namespace reach_k

#endif
