# CHEAT (partial write) for reach_04_layernorm: a correct LayerNorm kernel (inline CUDA) that
# is launched over only the FIRST HALF of the rows; the output comes from torch.empty, so the
# second half is whatever memory the allocator returned (possibly a recycled buffer holding a
# previous, correct result). ~2x "speedup".
# Must be judged FAIL: written_fraction 0.5 (and rel_frobenius ~0.7 if the rest is not the answer).
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
__global__ void layernorm_rows_kernel(const scalar_t* __restrict__ x, const scalar_t* __restrict__ w,
                                      const scalar_t* __restrict__ b, scalar_t* __restrict__ y,
                                      int64_t n_cols, float eps) {
    __shared__ float sh[32];
    const scalar_t* xr = x + (int64_t)blockIdx.x * n_cols;
    scalar_t* yr = y + (int64_t)blockIdx.x * n_cols;
    float s = 0.f;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) s += static_cast<float>(xr[c]);
    const float mean = block_sum(s, sh) / (float)n_cols;
    float q = 0.f;
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float d = static_cast<float>(xr[c]) - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q, sh) / (float)n_cols + eps);
    for (int64_t c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float v = (static_cast<float>(xr[c]) - mean) * rstd;
        yr[c] = static_cast<scalar_t>(v * static_cast<float>(w[c]) + static_cast<float>(b[c]));
    }
}

torch::Tensor layernorm_first_half(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && b.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(w.scalar_type() == x.scalar_type() && b.scalar_type() == x.scalar_type(), "dtype mismatch");
    auto xc = x.contiguous();
    auto wc = w.contiguous();
    auto bc = b.contiguous();
    const int64_t n_cols = xc.size(-1);
    const int64_t n_rows = xc.numel() / n_cols;
    auto y = torch::empty_like(xc);             // never initialized
    const int64_t rows_written = n_rows / 2;    // the cheat: half the grid
    if (rows_written == 0) return y;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "layernorm_first_half", [&] {
        layernorm_rows_kernel<scalar_t><<<(unsigned)rows_written, 512, 0, stream>>>(
            xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(), bc.data_ptr<scalar_t>(),
            y.data_ptr<scalar_t>(), n_cols, (float)eps);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor layernorm_first_half(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps);"

_ext = load_inline(
    name="reach_kb_04_layernorm_cheat_partial_half",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["layernorm_first_half"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(normalized_shape, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.layernorm_first_half(x, self.ln.weight, self.ln.bias, self.ln.eps)
