# Reach candidate for reach_05_rmsnorm: inline CUDA, one 256-thread block per row; pass 1
# sums x^2, pass 2 writes x * rsqrt(ms + eps) * w. Two reads (second from L2), scalar loads.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

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
__global__ void rmsnorm_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ w,
                               scalar_t* __restrict__ y, int64_t n_cols, float eps) {
    __shared__ float sh[32];
    const scalar_t* xr = x + (int64_t)blockIdx.x * n_cols;
    scalar_t* yr = y + (int64_t)blockIdx.x * n_cols;
    float q = 0.f;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float v = static_cast<float>(xr[c]);
        q += v * v;
    }
    const float r = rsqrtf(block_sum(q, sh) / (float)n_cols + eps);
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x)
        yr[c] = static_cast<scalar_t>(static_cast<float>(xr[c]) * r * static_cast<float>(w[c]));
}

torch::Tensor rmsnorm_rowblock(torch::Tensor x, torch::Tensor w, double eps) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(w.scalar_type() == x.scalar_type(), "dtype mismatch");
    auto xc = x.contiguous();
    auto wc = w.contiguous();
    const int64_t n_cols = xc.size(-1);
    TORCH_CHECK(wc.numel() == n_cols, "weight size");
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);
    if (n_rows == 0) return y;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "rmsnorm_rowblock", [&] {
        rmsnorm_kernel<scalar_t><<<(unsigned)n_rows, 256, 0, stream>>>(
            xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n_cols, (float)eps);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor rmsnorm_rowblock(torch::Tensor x, torch::Tensor w, double eps);"

_ext = load_inline(
    name="reach_kb_05_rmsnorm_cuda_rowblock",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["rmsnorm_rowblock"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        i = torch.arange(num_features, dtype=torch.float32)
        self.weight = nn.Parameter(1.0 + 0.5 * torch.sin(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.rmsnorm_rowblock(x, self.weight, self.eps)
