# Reach candidate for reach_11_dlrm_lookup: inline CUDA, one launch for all tables + concat.
# The table pointers travel in a by-value struct (up to 8); block (b, t) has one thread per
# column d, loops over the P lookups (coalesced row reads), sums in fp32 and writes
# out[b, t*D + d]. Correct; one row per thread-iteration, so fewer bytes in flight than Triton.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <vector>

constexpr int kMaxTables = 8;
template <typename scalar_t> struct Tables { const scalar_t* w[kMaxTables]; };

template <typename scalar_t>
__global__ void dlrm_fused_kernel(Tables<scalar_t> tables, const int64_t* __restrict__ idx,
                                  scalar_t* __restrict__ out, int64_t B, int64_t P, int64_t D, int T) {
    const int64_t b = blockIdx.x;
    const int t = blockIdx.y;
    const scalar_t* w = tables.w[t];
    const int64_t* rows = idx + ((int64_t)t * B + b) * P;  // indices[t, b, :]
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
        float acc = 0.f;
#pragma unroll 4
        for (int64_t p = 0; p < P; ++p) acc += static_cast<float>(w[rows[p] * D + d]);
        out[b * ((int64_t)T * D) + (int64_t)t * D + d] = static_cast<scalar_t>(acc);
    }
}

torch::Tensor dlrm_fused(std::vector<torch::Tensor> weights, torch::Tensor indices) {
    const int T = (int)weights.size();
    TORCH_CHECK(T >= 1 && T <= kMaxTables, "1..8 tables supported");
    TORCH_CHECK(indices.is_cuda() && indices.scalar_type() == at::kLong && indices.dim() == 3, "indices [T,B,P] int64");
    TORCH_CHECK(indices.size(0) == T, "indices.size(0) must equal the number of tables");
    std::vector<torch::Tensor> ws;
    for (auto& w : weights) {
        TORCH_CHECK(w.is_cuda() && w.dim() == 2, "CUDA 2-D tables expected");
        TORCH_CHECK(w.scalar_type() == weights[0].scalar_type() && w.size(1) == weights[0].size(1), "tables differ");
        ws.push_back(w.contiguous());
    }
    auto idx = indices.contiguous();
    const int64_t B = idx.size(1), P = idx.size(2), D = ws[0].size(1);
    auto out = torch::empty({B, (int64_t)T * D}, ws[0].options());
    if (B == 0) return out;
    const int threads = (int)std::min<int64_t>(1024, ((D + 31) / 32) * 32);
    const dim3 grid((unsigned)B, (unsigned)T);
    auto stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, ws[0].scalar_type(), "dlrm_fused", [&] {
        Tables<scalar_t> tabs;
        for (int t = 0; t < kMaxTables; ++t) tabs.w[t] = ws[t < T ? t : 0].data_ptr<scalar_t>();
        dlrm_fused_kernel<scalar_t><<<grid, threads, 0, stream>>>(
            tabs, idx.data_ptr<int64_t>(), out.data_ptr<scalar_t>(), B, P, D, T);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
    return out;
}
"""

cpp_src = "torch::Tensor dlrm_fused(std::vector<torch::Tensor> weights, torch::Tensor indices);"

_ext = load_inline(
    name="reach_kb_11_dlrm_lookup_cuda_fused",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["dlrm_fused"],
    extra_cuda_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_tables: int, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.tables = nn.ModuleList(
            [nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for _ in range(num_tables)])

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return _ext.dlrm_fused([t.weight for t in self.tables], indices)
