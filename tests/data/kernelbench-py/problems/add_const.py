# Hand-computed KernelBench cases: every element of the reference is exactly 0.25.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.full((4, 8), 0.125), torch.full((4, 8), 0.125)]


def get_init_inputs():
    return []
