// The controller's own kernels (gpu/devicekernels.h), on the GPU: the perturbation of a timed
// call's inputs is bit for bit the host's (core/verify/perturb.h), which is what lets a call chosen
// after the loop be checked against the reference of exactly the inputs it was given; the gather
// reads the sampled elements. Skips without a device.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <random>

#include "core/verify/perturb.h"
#include "gpu/devicekernels.h"
#include "gpu/verifyjob.h"

namespace reach_test_devicekernels_test {  // unity builds: this file's names stay its own

using namespace reach;

// A macro: GTEST_SKIP returns from the function it is written in.
#define REACH_REQUIRE_DEVICE()                      \
    do {                                            \
        const DeviceInfo d = queryDevice();         \
        if (!d.available)                           \
            GTEST_SKIP() << "no GPU: " << d.reason; \
    } while (0)

namespace {

HostTensor randomTensor(DType dt, int64_t n, uint64_t seed) {
    HostTensor t(TensorSpec{"x", dt, {n}});
    std::mt19937_64 g(seed);
    std::normal_distribution<double> nd(0, 3);
    for (int64_t i = 0; i < n; ++i)
        t.set(i, nd(g));
    return t;
}

}  // namespace

TEST(DeviceKernels, ThePerturbationIsTheHostsBitForBit) {
    REACH_REQUIRE_DEVICE();
    for (DType dt : {DType::F32, DType::BF16}) {
        SCOPED_TRACE(dtypeName(dt));
        const int64_t n = (1 << 20) + 3;
        const HostTensor src = randomTensor(dt, n, 7);
        HostTensor want = src;
        perturbHost(want, 0x1234abcdull);
        void *dSrc = nullptr, *dDst = nullptr;
        ASSERT_EQ(cudaMalloc(&dSrc, src.bytes.size()), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dDst, src.bytes.size()), cudaSuccess);
        cudaMemcpy(dSrc, src.bytes.data(), src.bytes.size(), cudaMemcpyHostToDevice);
        DeviceKernels::get().perturb(dDst, dSrc, n, dt, 0x1234abcdull, nullptr);
        HostTensor got = src;
        ASSERT_EQ(cudaMemcpy(got.bytes.data(), dDst, got.bytes.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_EQ(got.bytes, want.bytes);
        EXPECT_NE(got.bytes, src.bytes);
        cudaFree(dSrc);
        cudaFree(dDst);
    }
}

TEST(DeviceKernels, IndicesAreCopiedAsTheyAre) {
    REACH_REQUIRE_DEVICE();
    HostTensor idx(TensorSpec{"i", DType::I64, {1000}});
    for (int64_t i = 0; i < 1000; ++i)
        idx.set(i, double(i * 7));
    void *dSrc = nullptr, *dDst = nullptr;
    cudaMalloc(&dSrc, idx.bytes.size());
    cudaMalloc(&dDst, idx.bytes.size());
    cudaMemcpy(dSrc, idx.bytes.data(), idx.bytes.size(), cudaMemcpyHostToDevice);
    DeviceKernels::get().perturb(dDst, dSrc, 1000, DType::I64, 99, nullptr);
    HostTensor got = idx;
    cudaMemcpy(got.bytes.data(), dDst, got.bytes.size(), cudaMemcpyDeviceToHost);
    EXPECT_EQ(got.bytes, idx.bytes);
    cudaFree(dSrc);
    cudaFree(dDst);
}

TEST(DeviceKernels, TheGatherReadsTheSampledElements) {
    REACH_REQUIRE_DEVICE();
    const HostTensor src = randomTensor(DType::BF16, 100000, 3);
    std::vector<int64_t> pos = {0, 99999, 12345, 7, 7};
    void *dSrc = nullptr, *dDst = nullptr, *dIdx = nullptr;
    cudaMalloc(&dSrc, src.bytes.size());
    cudaMalloc(&dDst, pos.size() * 2);
    cudaMalloc(&dIdx, pos.size() * 8);
    cudaMemcpy(dSrc, src.bytes.data(), src.bytes.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dIdx, pos.data(), pos.size() * 8, cudaMemcpyHostToDevice);
    DeviceKernels::get().gather(dDst, dSrc, static_cast<const int64_t*>(dIdx), int64_t(pos.size()),
                                2, nullptr);
    HostTensor got(TensorSpec{"g", DType::BF16, {int64_t(pos.size())}});
    cudaMemcpy(got.bytes.data(), dDst, got.bytes.size(), cudaMemcpyDeviceToHost);
    for (size_t j = 0; j < pos.size(); ++j)
        EXPECT_EQ(got.at(int64_t(j)), src.at(pos[j])) << j;
    cudaFree(dSrc);
    cudaFree(dDst);
    cudaFree(dIdx);
}

}  // namespace reach_test_devicekernels_test
