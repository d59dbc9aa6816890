# Reach candidate for reach_07_relu: plain PyTorch rewrite, clamp_min(0). Correct, ~1.0x.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.clamp_min(0.0)
