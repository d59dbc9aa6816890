# Reach KernelBench-format problem 13: residual add followed by LayerNorm (a transformer block's
# "add & norm"; a fused kernel never writes x + residual to memory).
# y = LayerNorm(x + residual), eps 1e-5, x, residual [8192, 4096] ~ N(0, 1);
# weight = 1 + 0.5 sin(i), bias = 0.1 cos(i) (deterministic, no RNG).
# Bytes moved (fp32): 256 MiB read + 128 MiB written = 384 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(hidden, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.ln(x + residual)


tokens = 8192
hidden = 4096


def get_inputs():
    return [torch.randn(tokens, hidden), torch.randn(tokens, hidden)]


def get_init_inputs():
    return [hidden]
