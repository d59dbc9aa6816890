# Written for Reach's tests, named after KernelBench Level 1 #40 (so categories.csv applies), CPU size.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


def get_inputs():
    return [torch.rand(4, 4, 8, 8)]


def get_init_inputs():
    return [(4, 8, 8)]
