# Reach candidate for reach_13_residual_layernorm: plain PyTorch, unfused: the sum is
# materialized in fp32, then F.layer_norm in fp32, cast back. Correct; an extra
# write + read of the [8192, 4096] intermediate.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(hidden, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        h = x.float() + residual.float()
        y = F.layer_norm(h, self.ln.normalized_shape, self.ln.weight.float(), self.ln.bias.float(), self.ln.eps)
        return y.to(x.dtype)
