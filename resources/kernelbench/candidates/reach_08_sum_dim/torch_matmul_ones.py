# Reach candidate for reach_08_sum_dim: plain PyTorch, the reduction as a batched GEMV with a
# ones vector: [outer, 1, R] @ [outer, R, inner]. Correct as long as fp32 matmuls are not
# allowed to use TF32 (PyTorch's default); in bf16 cuBLAS accumulates in fp32.
import math
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        outer = math.prod(x.shape[:d])
        R = x.shape[d]
        x3 = x.reshape(outer, R, -1)
        ones = torch.ones(outer, 1, R, dtype=x.dtype, device=x.device)
        return torch.bmm(ones, x3).reshape(x.shape[:d] + x.shape[d + 1:])
