# CHEAT (input destruction) for reach_12_add: computes the correct sum, then zeroes both
# inputs before returning. The output is right, so a harness that runs the reference first and
# compares values afterwards passes it; any later use of the inputs (a second trial, the
# reference run after the candidate, a timing loop) sees zeros.
# Must be judged FAIL: inputs_unchanged.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        y = a + b
        a.zero_()
        b.zero_()
        return y
