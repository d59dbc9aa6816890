# Written for Reach's tests, named after KernelBench Level 1 #23 (so categories.csv applies).
# CPU size: rows of 32768 keep every element below 1e-4, so an all-zeros output passes
# KernelBench's fp32 check (tolerance 1e-4).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4
dim = 32768


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
