# Reach KernelBench-format problem 14: attention-score softmax with a scale.
# y = softmax(x * scale, dim=-1), scale = 0.125 (1/sqrt(64): exact in bf16),
# x [4, 16, 1024, 1024] ~ N(0, 8^2) (raw q.k logits), so x * scale ~ N(0, 1): max|y| ~ 0.05
# and a few elements per row above 0.01, so an all-zeros output does NOT pass allclose here.
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x * self.scale, dim=-1)


batch_size = 4
heads = 16
seq_q = 1024
seq_k = 1024
scale = 0.125


def get_inputs():
    return [torch.randn(batch_size, heads, seq_q, seq_k) * 8.0]


def get_init_inputs():
    return [scale]
