# Reach candidate for reach_14_scaled_softmax: inline CUDA, one warp per row (8 rows per
# 256-thread block), the row (<= 1024 elements) held in registers, 32 per lane; warp-shuffle
# max and sum, scale fused. One read, one write. Good kernel for attention-sized rows.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kPerLane = 32;  // rows up to 32 * 32 = 1024 elements

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <typename scalar_t>
__global__ void scaled_softmax_warp_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                                           int64_t n_rows, int64_t n_cols, float scale) {
    const int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    if (row >= n_rows) return;  // uniform per warp: the shuffles below keep all 32 lanes
    const scalar_t* xr = x + row * n_cols;
    scalar_t* yr = y + row * n_cols;
    float v[kPerLane];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
        const int64_t c = lane + 32 * k;
        v[k] = (c < n_cols) ? static_cast<float>(xr[c]) * scale : -INFINITY;
        m = fmaxf(m, v[k]);
    }
    m = warp_max(m);
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
        const int64_t c = lane + 32 * k;
        v[k] = (c < n_cols) ? expf(v[k] - m) : 0.f;
        s += v[k];
    }
    const float inv = 1.f / warp_sum(s);
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
        const int64_t c = lane + 32 * k;
        if (c < n_cols) yr[c] = static_cast<scalar_t>(v[k] * inv);
    }
}

torch::Tensor scaled_softmax_warp(torch::Tensor x, double scale) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    const int64_t n_cols = xc.size(-1);
    TORCH_CHECK(n_cols >= 1 && n_cols <= 32 * kPerLane, "rows of 1..1024 elements supported");
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);
    if (n_rows == 0) return y;
    const int threads = 256;
    const int64_t blocks = (n_rows + 7) / 8;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "scaled_softmax_warp", [&] {
        scaled_softmax_warp_kernel<scalar_t><<<(unsigned)blocks, threads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n_rows, n_cols, (float)scale);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor scaled_softmax_warp(torch::Tensor x, double scale);"

_ext = load_inline(
    name="reach_kb_14_scaled_softmax_cuda_warp_row",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["scaled_softmax_warp"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.scaled_softmax_warp(x, float(self.scale))
