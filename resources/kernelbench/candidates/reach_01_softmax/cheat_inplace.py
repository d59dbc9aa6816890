# CHEAT for reach_01_softmax: writes the right values over its INPUT and returns the input
# tensor itself (no output allocation, aliasing the input). The values are right, so a check
# that compares only values (after the reference was computed) passes it; the input is destroyed.
# Must be judged FAIL (inputs_unchanged / output aliases an input).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.copy_(torch.softmax(x, dim=-1))
        return x
