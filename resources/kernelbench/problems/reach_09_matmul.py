# Reach KernelBench-format problem 09: square matrix multiplication.
# C = A @ B, A, B [4096, 4096] ~ N(0, 1); C ~ N(0, 4096). 137 GFLOP.
# Bytes moved (fp32): 128 MiB read + 64 MiB written = 192 MiB (compute-bound).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 4096
K = 4096
N = 4096


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
