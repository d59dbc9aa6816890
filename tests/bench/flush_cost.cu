// What does the cold-L2 flush cost inside the timed window? reach-verify (like Triton's do_bench)
// writes a buffer of 2 x L2 before every repetition; that leaves L2 full of dirty lines, which
// the timed kernel then has to write back as it brings its own data in. This times a
// device-to-device copy of 8 MB to 1 GB after four kinds of preparation, in one run:
//   dirty  the verifier's flush (cudaMemsetAsync of 2 x L2);
//   clean  the same memset, then a read of the flushed buffer: L2 holds clean lines only;
//   read   only a read of a buffer of 2 x L2 that was never written since set-up;
//   none   nothing: back-to-back copies (the previous copy's dirty lines are in L2).
// "dirty - clean" is the flush's cost in the timed window; the copy-bandwidth measurement behind
// the roofline floor (back-to-back 512 MiB copies) is the "none" column at 512 MB.
// Build and run on a GPU machine: `scripts/verifier_device.sh flush` does
//   nvcc -O3 -std=c++17 -arch=sm_90 tests/bench/flush_cost.cu
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cudacheck.h"

namespace {

// Reads every 16-byte vector of p once, keeping nothing (the sink write never happens for real
// data but keeps the loads alive).
__global__ void readAll(const int4* p, size_t n, int* sink) {
    int4 acc = {0, 0, 0, 0};
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        int4 v = __ldcg(p + i);
        acc.x ^= v.x;
        acc.y ^= v.y;
        acc.z ^= v.z;
        acc.w ^= v.w;
    }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x12345678)
        *sink = 1;
}

enum class Prep { Dirty, Clean, Read, None };
constexpr Prep kPreps[] = {Prep::Dirty, Prep::Clean, Prep::Read, Prep::None};
constexpr const char* kNames[] = {"dirty", "clean", "read", "none"};
constexpr int kReps = 40, kWarmup = 5;

}  // namespace

int main() {
    int dev = 0, l2 = 0, sms = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, dev));
    // The verifier's flush size (gpu/cudarunner.cpp).
    const size_t flushBytes = std::max<size_t>(size_t(2) * size_t(l2), size_t(64) << 20);
    const size_t maxCopy = size_t(1024) << 20;
    void *flush, *untouched, *src, *dst;
    int* sink;
    CK(cudaMalloc(&flush, flushBytes));
    CK(cudaMalloc(&untouched, flushBytes));
    CK(cudaMalloc(&src, maxCopy));
    CK(cudaMalloc(&dst, maxCopy));
    CK(cudaMalloc(&sink, sizeof(int)));
    CK(cudaMemset(untouched, 3, flushBytes));
    CK(cudaMemset(src, 1, maxCopy));
    CK(cudaMemset(dst, 0, maxCopy));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::printf("%s: L2 %d MB, flush %zu MB (2 x L2), %d SMs; copy medians of %d reps, us\n",
                prop.name, l2 >> 20, flushBytes >> 20, sms, kReps - kWarmup);
    std::printf("%9s %9s %9s %9s %9s %14s\n", "copy MB", kNames[0], kNames[1], kNames[2], kNames[3],
                "dirty - clean");
    for (size_t mb : {8, 16, 32, 64, 128, 256, 512, 1024}) {
        const size_t bytes = mb << 20;
        double med[4] = {};
        for (int m = 0; m < 4; ++m) {
            std::vector<float> t;
            for (int i = 0; i < kReps; ++i) {
                if (kPreps[m] == Prep::Dirty || kPreps[m] == Prep::Clean)
                    CK(cudaMemsetAsync(flush, i & 0xff, flushBytes, s));
                if (kPreps[m] == Prep::Clean)
                    readAll<<<sms * 4, 512, 0, s>>>(static_cast<const int4*>(flush),
                                                    flushBytes / 16, sink);
                if (kPreps[m] == Prep::Read)
                    readAll<<<sms * 4, 512, 0, s>>>(static_cast<const int4*>(untouched),
                                                    flushBytes / 16, sink);
                CK(cudaEventRecord(e0, s));
                CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
                CK(cudaEventRecord(e1, s));
                CK(cudaEventSynchronize(e1));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                if (i >= kWarmup)
                    t.push_back(ms * 1000.f);
            }
            std::sort(t.begin(), t.end());
            med[m] = t[t.size() / 2];
        }
        std::printf("%9zu %9.2f %9.2f %9.2f %9.2f %14.2f\n", mb, med[0], med[1], med[2], med[3],
                    med[0] - med[1]);
    }
    return 0;
}
