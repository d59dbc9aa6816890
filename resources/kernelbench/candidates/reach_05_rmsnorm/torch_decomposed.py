# Reach candidate for reach_05_rmsnorm: plain PyTorch, the same formula evaluated in fp32
# and cast back once (the reference in bf16 rounds after every op). Correct.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        i = torch.arange(num_features, dtype=torch.float32)
        self.weight = nn.Parameter(1.0 + 0.5 * torch.sin(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        r = torch.rsqrt((xf * xf).mean(dim=-1, keepdim=True) + self.eps)
        return (xf * r * self.weight.float()).to(x.dtype)
