# Reach KernelBench-format problem 03: log-softmax over the last dimension.
# y = log_softmax(x, dim=-1), x [16384, 4096] ~ N(0, 1); outputs are about -8.9 +- 1.
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=-1)


batch_size = 16384
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
