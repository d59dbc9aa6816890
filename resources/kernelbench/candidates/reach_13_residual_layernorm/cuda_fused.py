# Reach candidate for reach_13_residual_layernorm: inline CUDA, one 512-thread block per row,
# h = x + residual cached in registers (up to 16 per thread: rows up to 8192), so x and the
# residual are read once and h is never written; block reductions for mean and variance.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kThreads = 512;
constexpr int kPerThread = 16;

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
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
__global__ void __launch_bounds__(kThreads) add_layernorm_kernel(
        const scalar_t* __restrict__ x, const scalar_t* __restrict__ r, const scalar_t* __restrict__ w,
        const scalar_t* __restrict__ b, scalar_t* __restrict__ y, int64_t n_cols, float eps) {
    __shared__ float sh[32];
    const int64_t base = (int64_t)blockIdx.x * n_cols;
    float h[kPerThread];
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int64_t c = threadIdx.x + (int64_t)k * kThreads;
        h[k] = 0.f;
        if (c < n_cols) {
            h[k] = static_cast<float>(x[base + c]) + static_cast<float>(r[base + c]);
            s += h[k];
        }
    }
    const float mean = block_sum(s, sh) / (float)n_cols;
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int64_t c = threadIdx.x + (int64_t)k * kThreads;
        if (c < n_cols) { const float d = h[k] - mean; q += d * d; }
    }
    const float rstd = rsqrtf(block_sum(q, sh) / (float)n_cols + eps);
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int64_t c = threadIdx.x + (int64_t)k * kThreads;
        if (c < n_cols)
            y[base + c] = static_cast<scalar_t>((h[k] - mean) * rstd * static_cast<float>(w[c]) +
                                                static_cast<float>(b[c]));
    }
}

torch::Tensor add_layernorm(torch::Tensor x, torch::Tensor residual, torch::Tensor w, torch::Tensor b, double eps) {
    TORCH_CHECK(x.is_cuda() && residual.is_cuda() && w.is_cuda() && b.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(x.sizes() == residual.sizes(), "x and residual shapes differ");
    TORCH_CHECK(residual.scalar_type() == x.scalar_type() && w.scalar_type() == x.scalar_type() &&
                b.scalar_type() == x.scalar_type(), "dtype mismatch");
    auto xc = x.contiguous();
    auto rc = residual.contiguous();
    auto wc = w.contiguous();
    auto bc = b.contiguous();
    const int64_t n_cols = xc.size(-1);
    TORCH_CHECK(n_cols <= (int64_t)kThreads * kPerThread, "rows longer than 8192 not supported");
    TORCH_CHECK(wc.numel() == n_cols && bc.numel() == n_cols, "weight/bias size");
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);
    if (n_rows == 0) return y;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "add_layernorm", [&] {
        add_layernorm_kernel<scalar_t><<<(unsigned)n_rows, kThreads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), rc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(), bc.data_ptr<scalar_t>(),
            y.data_ptr<scalar_t>(), n_cols, (float)eps);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor add_layernorm(torch::Tensor x, torch::Tensor residual, torch::Tensor w, torch::Tensor b, double eps);"

_ext = load_inline(
    name="reach_kb_13_residual_layernorm_cuda_fused",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["add_layernorm"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(hidden, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return _ext.add_layernorm(x, residual, self.ln.weight, self.ln.bias, self.ln.eps)
