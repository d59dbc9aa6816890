# Reach KernelBench-format problem 08: sum over a middle dimension (a strided reduction).
# y = x.sum(dim=1), x [32, 4096, 1024] ~ N(0, 1) -> y [32, 1024] (values ~ N(0, 4096)).
# Bytes moved (fp32): 512 MiB read + 128 KiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim)


batch_size = 32
reduce_size = 4096
inner_size = 1024
reduce_dim = 1


def get_inputs():
    return [torch.randn(batch_size, reduce_size, inner_size)]


def get_init_inputs():
    return [reduce_dim]
