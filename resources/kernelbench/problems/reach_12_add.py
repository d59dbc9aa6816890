# Reach KernelBench-format problem 12: elementwise add.
# y = a + b, a, b [8192, 8192] ~ N(0, 1).
# Bytes moved (fp32): 512 MiB read + 256 MiB written = 768 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


rows = 8192
cols = 8192


def get_inputs():
    return [torch.randn(rows, cols), torch.randn(rows, cols)]


def get_init_inputs():
    return []
