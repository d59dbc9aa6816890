# Reach candidate for reach_12_add: plain PyTorch, torch.add (the reference's own kernel).
# Correct, ~1.0x.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.add(a, b)
