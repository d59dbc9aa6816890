# Reach candidate for reach_07_relu: inline CUDA, 16-byte vector loads/stores in a
# grid-stride loop, scalar tail, scalar fallback for unaligned pointers. Good kernel.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <cstdint>

template <typename T, int N> struct alignas(16) Vec { T v[N]; };

template <typename scalar_t>
__device__ __forceinline__ scalar_t relu1(scalar_t a) {
    const float f = static_cast<float>(a);
    return f > 0.f ? a : static_cast<scalar_t>(0.f);
}

template <typename scalar_t>
__global__ void relu_vec_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                                int64_t n, bool aligned) {
    constexpr int V = 16 / sizeof(scalar_t);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t done = 0;
    if (aligned) {
        const int64_t nvec = n / V;
        const Vec<scalar_t, V>* xv = reinterpret_cast<const Vec<scalar_t, V>*>(x);
        Vec<scalar_t, V>* yv = reinterpret_cast<Vec<scalar_t, V>*>(y);
        for (int64_t i = tid; i < nvec; i += stride) {
            Vec<scalar_t, V> r = xv[i];
#pragma unroll
            for (int k = 0; k < V; ++k) r.v[k] = relu1(r.v[k]);
            yv[i] = r;
        }
        done = nvec * V;
    }
    for (int64_t i = done + tid; i < n; i += stride) y[i] = relu1(x[i]);
}

torch::Tensor relu_vec(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const bool aligned = (reinterpret_cast<uintptr_t>(xc.data_ptr()) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(y.data_ptr()) % 16 == 0);
    const int threads = 256;
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    const int64_t want = (n + (int64_t)threads * 8 - 1) / ((int64_t)threads * 8);
    const int blocks = (int)std::max<int64_t>(1, std::min<int64_t>(want, (int64_t)sms * 16));
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "relu_vec", [&] {
        relu_vec_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n, aligned);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor relu_vec(torch::Tensor x);"

_ext = load_inline(
    name="reach_kb_07_relu_cuda_vec",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["relu_vec"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_vec(x)
