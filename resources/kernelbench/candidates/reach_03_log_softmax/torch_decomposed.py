# Reach candidate for reach_03_log_softmax: plain PyTorch, x - logsumexp(x) computed in fp32
# and cast back (a bf16 logsumexp would round the ~9.0 shift to a multiple of 1/16). Correct; slower.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        return (xf - torch.logsumexp(xf, dim=-1, keepdim=True)).to(x.dtype)
