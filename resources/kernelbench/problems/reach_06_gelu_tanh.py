# Reach KernelBench-format problem 06: GELU, TANH approximation (not the exact erf form):
# y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), x [16384, 8192] ~ N(0, 1).
# The end-to-end timing target of the set: exactly 1 GiB of traffic in fp32
# (512 MiB read + 512 MiB written; bf16: 512 MiB in all).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


batch_size = 16384
dim = 8192


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
