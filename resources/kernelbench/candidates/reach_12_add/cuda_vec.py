# Reach candidate for reach_12_add: inline CUDA, 16-byte vector loads of both operands and a
# 16-byte store per thread-iteration (grid-stride), scalar tail and unaligned fallback.
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
__global__ void add_vec_kernel(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                               scalar_t* __restrict__ y, int64_t n, bool aligned) {
    constexpr int V = 16 / sizeof(scalar_t);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t done = 0;
    if (aligned) {
        const int64_t nvec = n / V;
        const Vec<scalar_t, V>* av = reinterpret_cast<const Vec<scalar_t, V>*>(a);
        const Vec<scalar_t, V>* bv = reinterpret_cast<const Vec<scalar_t, V>*>(b);
        Vec<scalar_t, V>* yv = reinterpret_cast<Vec<scalar_t, V>*>(y);
        for (int64_t i = tid; i < nvec; i += stride) {
            const Vec<scalar_t, V> ra = av[i], rb = bv[i];
            Vec<scalar_t, V> r;
#pragma unroll
            for (int k = 0; k < V; ++k)
                r.v[k] = static_cast<scalar_t>(static_cast<float>(ra.v[k]) + static_cast<float>(rb.v[k]));
            yv[i] = r;
        }
        done = nvec * V;
    }
    for (int64_t i = done + tid; i < n; i += stride)
        y[i] = static_cast<scalar_t>(static_cast<float>(a[i]) + static_cast<float>(b[i]));
}

torch::Tensor add_vec(torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type(), "shape/dtype mismatch");
    auto ac = a.contiguous();
    auto bc = b.contiguous();
    auto y = torch::empty_like(ac);
    const int64_t n = ac.numel();
    if (n == 0) return y;
    const bool aligned = (reinterpret_cast<uintptr_t>(ac.data_ptr()) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(bc.data_ptr()) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(y.data_ptr()) % 16 == 0);
    const int threads = 256;
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    const int64_t want = (n + (int64_t)threads * 8 - 1) / ((int64_t)threads * 8);
    const int blocks = (int)std::max<int64_t>(1, std::min<int64_t>(want, (int64_t)sms * 16));
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, ac.scalar_type(), "add_vec", [&] {
        add_vec_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
            ac.data_ptr<scalar_t>(), bc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n, aligned);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor add_vec(torch::Tensor a, torch::Tensor b);"

_ext = load_inline(
    name="reach_kb_12_add_cuda_vec",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["add_vec"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return _ext.add_vec(a, b)
