// Reach baseline: multi_embedding_concat. When a row is 4, 8, 16 or 32 16-byte vectors and the
// pooling divides a slot: reach/gather.h's pooledPipe (tables streamed one after another by every
// warp). Otherwise one warp per (batch row, table) job.
// Measured on the H200 (docs/measurements/2026-11-29-long-row-softmax-and-the-gathers.md), 8 tables of 1M x 64 bf16, 262144 lookups
// each, pooling 4: 101.3 to 102.0 us over nine runs (floor 77 to 80; 1.29-1.32x); reading the
// rows alone, with no output written, takes 90.9 us. The previous kernel (8 lanes per job, all of
// a job's rows in flight in registers, jobs in batch-row order) ran 125 us, 122 us with the jobs
// in table order; the gather pipeline with all tables at once and a shuffle reduction per bag,
// 135.5; L2 evict-last hints on the rows, 101.5; work handed out dynamically, 108.8 or more.
#include <reach/gather.h>

template <typename T, int G>
static int launchPooled(const reach_k::GatherTables& tabs, const int64_t* idx, T* y, int NT, int64_t B, int P, int64_t D, cudaStream_t s) {
    auto kernel = reach_k::pooledPipe<T, G>;
    const int smem = reach_k::kGatherSmemBytes;
    static bool attr = false;
    if (!attr && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) return 2;
    attr = true;
    const int64_t per = (B + reach_k::gatherResidentWarps() - 1) / reach_k::gatherResidentWarps();
    const int64_t warps = (B + per - 1) / per, wpb = reach_k::kGatherThreads / 32;
    kernel<<<unsigned((warps + wpb - 1) / wpb), reach_k::kGatherThreads, smem, s>>>(tabs, idx, y, NT, B, P, D, per);
    return 0;
}

template <typename T>
__global__ void concatWarp(reach_k::GatherTables tabs, const int64_t* __restrict__ idx, T* __restrict__ y,
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
    int64_t D = in[0].shape[1], B = out[0].shape[0];
    if (B == 0 || D == 0 || NT == 0) return 0;
    int64_t P = ix.shape[1] / B;
    reach_k::GatherTables tabs{};
    for (int t = 0; t < NT; ++t) tabs.w[t] = in[t].data;
    auto go = [&](auto tt) {
        using T = decltype(tt);
        constexpr int N = reach_k::Vec<T>::N;
        const int64_t nv = D % N == 0 ? D / N : 0;
        const int G = nv == 4 ? 4 : nv == 8 ? 8 : nv == 16 ? 16 : nv == 32 ? 32 : 0;
        const int64_t slotRows = G ? 32 / G * reach_k::kGatherRI : 0;
        const int64_t* idx = (const int64_t*)ix.data;
        T* y = (T*)out[0].data;
        if (G && B > 0 && P >= 1 && P <= slotRows && slotRows % P == 0) {
            if (G == 4) return launchPooled<T, 4>(tabs, idx, y, int(NT), B, int(P), D, s);
            if (G == 8) return launchPooled<T, 8>(tabs, idx, y, int(NT), B, int(P), D, s);
            if (G == 16) return launchPooled<T, 16>(tabs, idx, y, int(NT), B, int(P), D, s);
            return launchPooled<T, 32>(tabs, idx, y, int(NT), B, int(P), D, s);
        }
        int64_t jobs = B * NT;
        concatWarp<T><<<unsigned((jobs + 7) / 8), 256, 0, s>>>(tabs, idx, y, NT, B, P, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
