# Written for Reach's red team, named after KernelBench Level 1 #94 (so categories.csv applies):
# the mean squared error of two torch.rand tensors, a reduction to one scalar. CPU size: 4M
# elements a tensor (16 MiB drawn, 8 MiB in bf16).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions, targets):
        return torch.mean((predictions - targets) ** 2)


batch_size = 1024
input_shape = (4096,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
