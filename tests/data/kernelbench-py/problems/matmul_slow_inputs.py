# Written for Reach's red team: an fp32 matrix product whose get_inputs() is slow (150 ms a draw,
# a sleep standing in for inputs that take long to make), so that drawing fresh inputs for every
# timed repetition would take more than the judge's 3 s budget and it draws a pool of 4 sets
# instead (docs/kernelbench.md, "Timing"; 150 ms x 23 repetitions, the red team's default
# 20 after 3, is 3.45 s).
import time

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 256


def get_inputs():
    time.sleep(0.15)
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
