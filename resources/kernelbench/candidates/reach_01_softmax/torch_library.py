# Reach candidate for reach_01_softmax: honest library fallback. ModelNew calls PyTorch's own
# softmax: correct by construction, speedup ~1.0x. Not a cheat; a verifier must pass it.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)
