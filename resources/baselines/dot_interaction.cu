// Reach baseline: dot_interaction. bf16 with F <= 32 and D a multiple of 16 (DLRM's 27 x 128):
// persistent warps, each staging its samples x[b] in shared memory with cp.async, double
// buffered (rows padded to 32 with zeros), forms the lower half of X X^T on the tensor cores (wmma bf16, f32 accumulation: 3 of
// the 4 16x16 tiles), and writes the F(F-1)/2 dots in order. The CUDA-core kernel below it (4
// samples per block, f32 staging) is the fallback for other shapes and f32.
#include <mma.h>
#include <reach/kernels.h>

constexpr int kWarps = 4;  // 4 warps x 2 x 8.7 KB (D = 128): three blocks, twelve warps per SM
constexpr int kGld = 36;  // f32 row stride of the 32 x 32 Gram tile (multiple of 4 for wmma)

__device__ __forceinline__ void decodePair(int p, int& i, int& j) {
    i = int((1.f + sqrtf(1.f + 8.f * p)) * 0.5f);
    while (i * (i - 1) / 2 > p) --i;
    while ((i + 1) * i / 2 <= p) ++i;
    j = p - i * (i - 1) / 2;
}

// Bytes of shared memory one warp uses: the padded sample, later reused for the Gram tile.
static inline size_t warpBytes(int D) {
    size_t x = size_t(32) * (D + 8) * 2, g = size_t(32) * kGld * 4;
    return x > g ? x : g;
}

__device__ __forceinline__ void cpAsync16(void* smem, const void* gmem) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}

// kD > 0: D known at compile time (shifts instead of divisions, constant strides for the
// fragment loads); kD == 0: D from the argument. The block first builds a table of the pair
// offsets into the Gram tile, so writing the outputs is a lookup, not a square root per pair.
// Persistent: each warp walks samples b, b + stride, ... with two staging buffers; the copy of
// its next sample (cp.async) is in flight while it works on the current one, so the memory
// system always has requests from every warp (one sample per warp and no loop, 8.7 KB staged
// per warp, ran at 2.4 TB/s: 52.6 us for a 30 us floor).
template <int kD>
__global__ void __launch_bounds__(kWarps * 32) dotWmma(const __nv_bfloat16* __restrict__ x,
                                                      __nv_bfloat16* __restrict__ y, int64_t B,
                                                      int F, int Darg, int warpElems) {
    using namespace nvcuda;
    extern __shared__ __align__(128) unsigned char smraw[];
    __shared__ short pairOff[32 * 31 / 2];
    const int D = kD > 0 ? kD : Darg, ld = D + 8, rowVecs = D / 8;
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, NP = F * (F - 1) / 2;
    const int total = F * rowVecs;
    __nv_bfloat16* cur = reinterpret_cast<__nv_bfloat16*>(smraw) + size_t(warp) * 2 * warpElems;
    __nv_bfloat16* nxt = cur + warpElems;
    const int64_t stride = int64_t(gridDim.x) * kWarps;
    int64_t b = int64_t(blockIdx.x) * kWarps + warp;
    auto stage = [&](int64_t s, __nv_bfloat16* dst) {
        const uint4* src = reinterpret_cast<const uint4*>(x + s * F * D);
        for (int k = lane; k < total; k += 32)
            cpAsync16(dst + (k / rowVecs) * ld + (k % rowVecs) * 8, src + k);
    };
    if (b < B) stage(b, cur);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    for (int p = threadIdx.x; p < NP; p += blockDim.x) {
        int i, j;
        decodePair(p, i, j);
        pairOff[p] = short(i * kGld + j);
    }
    __syncthreads();
    for (; b < B; b += stride) {
        if (b + stride < B) stage(b + stride, nxt);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        // Rows F..31 are zero padding; the Gram tile of an earlier sample overwrote them. The
        // copy in flight into this buffer only writes rows < F.
        for (int k = lane; k < (32 - F) * rowVecs; k += 32)
            *reinterpret_cast<uint4*>(cur + (F + k / rowVecs) * ld + (k % rowVecs) * 8) = make_uint4(0, 0, 0, 0);
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");  // this lane's part of sample b
        __syncwarp();                                            // ... and every lane's
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[3];
#pragma unroll
        for (int t = 0; t < 3; ++t) wmma::fill_fragment(acc[t], 0.f);
        bool two = F > 16;
#pragma unroll
        for (int k = 0; k < D; k += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a0, a1;
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b0, b1;
            wmma::load_matrix_sync(a0, cur + k, ld);
            wmma::load_matrix_sync(b0, cur + k, ld);
            wmma::mma_sync(acc[0], a0, b0, acc[0]);
            if (two) {
                wmma::load_matrix_sync(a1, cur + 16 * ld + k, ld);
                wmma::load_matrix_sync(b1, cur + 16 * ld + k, ld);
                wmma::mma_sync(acc[1], a1, b0, acc[1]);
                wmma::mma_sync(acc[2], a1, b1, acc[2]);
            }
        }
        __syncwarp();  // every lane is done reading the sample: reuse its space for the Gram tile
        float* gs = reinterpret_cast<float*>(cur);
        wmma::store_matrix_sync(gs, acc[0], kGld, wmma::mem_row_major);
        if (two) {
            wmma::store_matrix_sync(gs + 16 * kGld, acc[1], kGld, wmma::mem_row_major);
            wmma::store_matrix_sync(gs + 16 * kGld + 16, acc[2], kGld, wmma::mem_row_major);
        }
        __syncwarp();
        __nv_bfloat16* yb = y + b * NP;
        for (int p = lane; p < NP; p += 32) yb[p] = __float2bfloat16(gs[pairOff[p]]);
        __syncwarp();  // the Gram tile is read: this buffer takes the prefetch next iteration
        __nv_bfloat16* t = cur;
        cur = nxt;
        nxt = t;
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}

constexpr int kRows = 4;

template <typename T>
__global__ void dotPairs(const T* __restrict__ x, T* __restrict__ y, int64_t B, int F, int D) {
    extern __shared__ float xs[];
    int stride = D + 1, NP = F * (F - 1) / 2;
    int64_t b0 = int64_t(blockIdx.x) * kRows;
    int rows = int(B - b0 < kRows ? B - b0 : kRows);
    for (int k = threadIdx.x; k < rows * F * D; k += blockDim.x) {
        int r = k / (F * D), rem = k % (F * D), f = rem / D, d = rem % D;
        xs[(r * F + f) * stride + d] = reach_to_float(x[(b0 + r) * F * D + rem]);
    }
    __syncthreads();
    for (int job = threadIdx.x; job < rows * NP; job += blockDim.x) {
        int r = job / NP, p = job % NP;
        int i, j;
        decodePair(p, i, j);
        const float* xi = xs + (r * F + i) * stride;
        const float* xj = xs + (r * F + j) * stride;
        float acc = 0;
#pragma unroll 8
        for (int d = 0; d < D; ++d) acc = fmaf(xi[d], xj[d], acc);
        y[(b0 + r) * NP + p] = reach_from_float<T>(acc);
    }
}

extern "C" int reach_run(const reach_tensor* in, int, reach_tensor* out, int, cudaStream_t s) {
    int64_t B = in[0].shape[0];
    int F = int(in[0].shape[1]), D = int(in[0].shape[2]);
    if (in[0].dtype == REACH_BF16 && F >= 2 && F <= 32 && D % 16 == 0 && kWarps * 2 * warpBytes(D) <= 200 * 1024) {
        size_t wb = warpBytes(D), smem = kWarps * 2 * wb;
        const int which = D == 128;
        auto kern = which ? dotWmma<128> : dotWmma<0>;
        // Set the attribute and size the persistent grid once, not inside every timed call.
        static size_t s_smemSet[2] = {0, 0};
        static int s_blocks[2] = {0, 0};
        if (smem != s_smemSet[which]) {
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
            int dev = 0, sms = 0, perSM = 0;
            cudaGetDevice(&dev);
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, kern, kWarps * 32, smem) != cudaSuccess || perSM < 1)
                perSM = 1;
            s_smemSet[which] = smem;
            s_blocks[which] = perSM * (sms > 0 ? sms : 1);
        }
        int64_t need = (B + kWarps - 1) / kWarps;
        unsigned grid = unsigned(need < s_blocks[which] ? need : s_blocks[which]);
        kern<<<grid < 1 ? 1 : grid, kWarps * 32, smem, s>>>((const __nv_bfloat16*)in[0].data, (__nv_bfloat16*)out[0].data, B, F, D, int(wb / 2));
        return 0;
    }
    size_t smem = size_t(kRows) * F * (D + 1) * sizeof(float);
    auto go = [&](auto t) {
        using T = decltype(t);
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(dotPairs<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        dotPairs<T><<<unsigned((B + kRows - 1) / kRows), 512, smem, s>>>((const T*)in[0].data,
                                                                          (T*)out[0].data, B, F, D);
        return 0;
    };
    return REACH_DISPATCH_FLOAT(in[0].dtype, go);
}
