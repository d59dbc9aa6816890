// How fast can an embedding baseline gather rows on this GPU? Runs reach/gather.h's pipeline
// (the kernel behind the embedding_bag_sum baseline) on a 4 GB table with bags of 32 rows, once
// with sequential rows and once with uniformly random ones, and a device-to-device copy of the
// same number of bytes, all in one run and under the verifier's timing method (L2 flushed by a
// 256 MB write before every repetition, CUDA events, median of 22). It prints GB/s and the two
// ratios that matter: random / sequential (what randomness costs) and gather / copy (how far the
// gather stays from the bandwidth the roofline floor is computed with).
// Build and run on a GPU machine: `scripts/verifier_device.sh gathers` does
//   nvcc -O3 -std=c++17 -arch=sm_90 -I resources/include tests/bench/gather_ceiling.cu
#include <reach/gather.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cudacheck.h"

namespace {

constexpr int64_t kP = 32;  // rows per bag
constexpr size_t kTableBytes = 4ull << 30, kGathered = 512ull << 20, kFlushBytes = 256ull << 20;

struct FixedBags {
    __device__ int64_t start(int64_t b) const { return b * kP; }
};
struct Units {
    const void* w;
    const int64_t* idx;
    void* y;
    int64_t per, B;
    __device__ reach_k::GatherUnit operator()(int64_t u) const {
        const int64_t b0 = u * per < B ? u * per : B, b1 = b0 + per < B ? b0 + per : B;
        return {w, idx, b0, b1, y};
    }
};

struct Buffers {
    void* table;
    void* out;
    void* copySrc;
    char* flush;
    int64_t* idx;
};

template <class F>
double medianUs(F launch, const Buffers& b) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> us;
    for (int rep = 0; rep < 25; ++rep) {
        CK(cudaMemsetAsync(b.flush, rep & 0xff, kFlushBytes));
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (rep >= 3)
            us.push_back(ms * 1000.f);
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

// T and D give the row: f32 x 128 = 512 B, bf16 x 128 = 256 B, bf16 x 64 = 128 B.
template <typename T, int G>
void row(const char* name, int64_t D, const Buffers& b) {
    const int64_t rowBytes = D * int64_t(sizeof(T)), n = int64_t(kGathered) / rowBytes;
    const int64_t rows = int64_t(kTableBytes) / rowBytes, B = n / kP;
    auto kernel = reach_k::gatherSumPipe<T, G, FixedBags, Units>;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            reach_k::kGatherSmemBytes));
    const int64_t warps = reach_k::gatherResidentWarps(), per = (B + warps - 1) / warps;
    const int64_t units = (B + per - 1) / per, wpb = reach_k::kGatherThreads / 32;
    // Rows + indices + output: what the kernel has to move at least.
    const double bytes = double(kGathered) + double(n) * 8.0 + double(B) * double(rowBytes);
    const double copyUs = medianUs(
        [&] { CK(cudaMemcpyAsync(b.out, b.copySrc, size_t(bytes / 2), cudaMemcpyDeviceToDevice)); },
        b);
    std::mt19937_64 rng(42);
    std::vector<int64_t> h(static_cast<size_t>(n));
    double us[2] = {0, 0};
    for (int random = 0; random < 2; ++random) {
        for (int64_t i = 0; i < n; ++i)
            h[size_t(i)] = random ? int64_t(rng() % uint64_t(rows)) : i;
        CK(cudaMemcpy(b.idx, h.data(), size_t(n) * 8, cudaMemcpyHostToDevice));
        us[random] = medianUs(
            [&] {
                kernel<<<unsigned((units + wpb - 1) / wpb), reach_k::kGatherThreads,
                         reach_k::kGatherSmemBytes>>>(
                    FixedBags{}, Units{b.table, b.idx, b.out, per, B}, units, D, D);
            },
            b);
    }
    std::printf(
        "%-8s rows %5.0f GB/s sequential, %5.0f GB/s random; copy of the same bytes %5.0f GB/s | "
        "random/sequential time %.3f, random gather/copy time %.3f\n",
        name, bytes / us[0] / 1e3, bytes / us[1] / 1e3, bytes / copyUs / 1e3, us[1] / us[0],
        us[1] / copyUs);
}

}  // namespace

int main() {
    Buffers b{};
    CK(cudaMalloc(&b.table, kTableBytes));
    CK(cudaMalloc(&b.out, kGathered));
    CK(cudaMalloc(&b.copySrc, kGathered));
    CK(cudaMalloc(&b.flush, kFlushBytes));
    CK(cudaMalloc(&b.idx, kGathered / 128 * 8));
    CK(cudaMemset(b.table, 0, kTableBytes));
    CK(cudaMemset(b.copySrc, 0, kGathered));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s: %zu MB of rows gathered from a %zu MB table, bags of %lld rows\n", prop.name,
                kGathered >> 20, kTableBytes >> 20, static_cast<long long>(kP));
    row<float, 32>("512 B", 128, b);
    row<__nv_bfloat16, 16>("256 B", 128, b);
    row<__nv_bfloat16, 8>("128 B", 64, b);
    return 0;
}
