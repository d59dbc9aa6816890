# Reach KernelBench-format problem 07: ReLU on a 4-D activation.
# y = max(x, 0), x [16, 64, 256, 256] ~ N(0, 1) (67M elements).
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 16
channels = 64
height = 256
width = 256


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
