# Reach candidate for reach_14_scaled_softmax: plain PyTorch, scale + max-subtracted exp +
# normalize written out in fp32, cast back. Correct; several kernels.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = x.float() * self.scale
        e = torch.exp(z - z.amax(dim=-1, keepdim=True))
        return (e / e.sum(dim=-1, keepdim=True)).to(x.dtype)
