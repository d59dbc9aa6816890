# Reach candidate for reach_02_softmax_wide: inline CUDA, one 1024-thread block per row.
# Pass 1: each thread keeps an online (max, rescaled sum) over its strided elements; the block
# combines them. Pass 2: write exp(x - max) / sum. Two reads + one write, scalar loads.
# Templated on fp32/bf16/fp16, fp32 arithmetic.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ float block_max(float v, float* sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max(v);
    __syncthreads();
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = (lane < nw) ? sh[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}
__device__ float block_sum(float v, float* sh) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = (lane < nw) ? sh[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}

template <typename scalar_t>
__global__ void softmax_online_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y,
                                      int64_t n_cols) {
    __shared__ float sh[32];
    const scalar_t* xr = x + (int64_t)blockIdx.x * n_cols;
    scalar_t* yr = y + (int64_t)blockIdx.x * n_cols;
    float m = -INFINITY, s = 0.f;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float v = static_cast<float>(xr[c]);
        if (v > m) { s = s * expf(m - v) + 1.f; m = v; }  // first element: 0 * exp(-inf) + 1
        else       { s += expf(v - m); }
    }
    const float m_row = block_max(m, sh);
    // a thread that saw no element has m = -inf, s = 0: its term is 0 * exp(-inf) = 0
    const float s_row = block_sum(s * expf(m - m_row), sh);
    const float inv = 1.f / s_row;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x)
        yr[c] = static_cast<scalar_t>(expf(static_cast<float>(xr[c]) - m_row) * inv);
}

torch::Tensor softmax_online(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    const int64_t n_cols = xc.size(-1);
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);
    if (n_rows == 0) return y;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "softmax_online", [&] {
        softmax_online_kernel<scalar_t><<<(unsigned)n_rows, 1024, 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n_cols);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor softmax_online(torch::Tensor x);"

_ext = load_inline(
    name="reach_kb_02_softmax_wide_cuda_online",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["softmax_online"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.softmax_online(x)
