# Reach candidate for reach_08_sum_dim: inline CUDA, one thread per output element looping
# over the reduced dimension (loads are coalesced across a warp, fp32 accumulation). Only
# outer * inner = 32768 threads at the shipped size: too few loads in flight to approach HBM
# bandwidth. Correct but slow (naive).
import math
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

template <typename scalar_t>
__global__ void sum_mid_naive_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                                     int64_t outer, int64_t R, int64_t inner) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= outer * inner) return;
    const int64_t o = i / inner, j = i % inner;
    const scalar_t* p = x + o * R * inner + j;
    float acc = 0.f;
    for (int64_t r = 0; r < R; ++r) acc += static_cast<float>(p[r * inner]);
    y[i] = static_cast<scalar_t>(acc);
}

torch::Tensor sum_mid_naive(torch::Tensor x, int64_t outer, int64_t R, int64_t inner) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    TORCH_CHECK(xc.numel() == outer * R * inner, "shape mismatch");
    auto y = torch::empty({outer * inner}, xc.options());
    if (outer * inner == 0) return y;
    const int threads = 256;
    const int64_t blocks = (outer * inner + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "sum_mid_naive", [&] {
        sum_mid_naive_kernel<scalar_t><<<(unsigned)blocks, threads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), outer, R, inner);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor sum_mid_naive(torch::Tensor x, int64_t outer, int64_t R, int64_t inner);"

_ext = load_inline(
    name="reach_kb_08_sum_dim_cuda_naive",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["sum_mid_naive"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        outer = math.prod(x.shape[:d])
        inner = math.prod(x.shape[d + 1:])
        y = _ext.sum_mid_naive(x, outer, x.shape[d], inner)
        return y.view(x.shape[:d] + x.shape[d + 1:])
