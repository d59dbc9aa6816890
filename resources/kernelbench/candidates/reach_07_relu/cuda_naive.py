# Reach candidate for reach_07_relu: inline CUDA in the style of the KernelBench prompt
# example: one thread per element, scalar loads, output from torch::zeros_like (an extra
# memset pass, 1.5x the traffic). Correct but slower than it needs to be.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

template <typename scalar_t>
__global__ void relu_naive_kernel(const scalar_t* x, scalar_t* y, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = static_cast<float>(x[i]);
        y[i] = static_cast<scalar_t>(v > 0.f ? v : 0.f);
    }
}

torch::Tensor relu_naive(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::zeros_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, xc.scalar_type(), "relu_naive", [&] {
        relu_naive_kernel<scalar_t><<<(unsigned)blocks, threads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return y;
}
"""

cpp_src = "torch::Tensor relu_naive(torch::Tensor x);"

_ext = load_inline(
    name="reach_kb_07_relu_cuda_naive",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["relu_naive"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ext.relu_naive(x)
