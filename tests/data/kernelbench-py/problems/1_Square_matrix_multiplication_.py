# Written for Reach's red team, named after KernelBench Level 1 #1 (so categories.csv applies): an
# fp32 product of two torch.rand matrices, as there (every operand non-negative, so every output
# element is a large sum of positive terms); CPU size, N = 512 (1 MiB a matrix).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 512


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []
