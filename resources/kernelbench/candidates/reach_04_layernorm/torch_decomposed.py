# Reach candidate for reach_04_layernorm: plain PyTorch, LayerNorm written out in fp32
# (mean, biased variance, rsqrt, affine) and cast back. Correct; several kernels, slower.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(normalized_shape, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        mean = xf.mean(dim=-1, keepdim=True)
        d = xf - mean
        var = (d * d).mean(dim=-1, keepdim=True)
        y = d * torch.rsqrt(var + self.ln.eps) * self.ln.weight.float() + self.ln.bias.float()
        return y.to(x.dtype)
