# Reach candidate for reach_09_matmul: inline CUDA, the textbook naive GEMM: one thread per
# output element, a K-loop of scalar loads (A broadcast across the warp, B coalesced), fp32
# accumulation, no shared memory, no tensor cores. Correct and very slow (tens of ms at 4096^3).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

template <typename scalar_t>
__global__ void matmul_naive_kernel(const scalar_t* __restrict__ A, const scalar_t* __restrict__ B,
                                    scalar_t* __restrict__ C, int64_t M, int64_t N, int64_t K) {
    const int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const scalar_t* a = A + row * K;
    float acc = 0.f;
    for (int64_t k = 0; k < K; ++k) acc += static_cast<float>(a[k]) * static_cast<float>(B[k * N + col]);
    C[row * N + col] = static_cast<scalar_t>(acc);
}

torch::Tensor matmul_naive(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shapes");
    TORCH_CHECK(A.scalar_type() == B.scalar_type(), "dtype mismatch");
    auto a = A.contiguous();
    auto b = B.contiguous();
    const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
    auto c = torch::empty({M, N}, a.options());
    if (M == 0 || N == 0) return c;
    const dim3 block(32, 8);
    const dim3 grid((unsigned)((N + 31) / 32), (unsigned)((M + 7) / 8));
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, a.scalar_type(), "matmul_naive", [&] {
        matmul_naive_kernel<scalar_t><<<grid, block, 0, stream>>>(
            a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(), M, N, K);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return c;
}
"""

cpp_src = "torch::Tensor matmul_naive(torch::Tensor A, torch::Tensor B);"

_ext = load_inline(
    name="reach_kb_09_matmul_cuda_naive",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["matmul_naive"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return _ext.matmul_naive(A, B)
