# Reach candidate for reach_06_gelu_tanh: plain PyTorch, the tanh formula written out in fp32
# and cast back. Correct; about eight elementwise kernels instead of one.
import math
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        u = math.sqrt(2.0 / math.pi) * (xf + 0.044715 * xf * xf * xf)
        return (0.5 * xf * (1.0 + torch.tanh(u))).to(x.dtype)
