# Written for Reach's red team, named after KernelBench Level 1 #19 (so categories.csv applies):
# its inputs are torch.rand, as there, so every timed input is non-negative; CPU size (4 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 16
dim = 65536


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
