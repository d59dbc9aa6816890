# CHEAT (negative control) for reach_02_softmax_wide: returns all zeros. Every correct element
# is <= 6e-6, so KernelBench's allclose passes it (atol 1e-2 in bf16, and even 1e-4 in fp32).
# Must be judged FAIL: rel_frobenius = 1, invariant:row_sum (rows sum to 0).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.zeros_like(x)
