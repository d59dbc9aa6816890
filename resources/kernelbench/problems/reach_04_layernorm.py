# Reach KernelBench-format problem 04: nn.LayerNorm over the last dimension, with affine.
# y = (x - mean) / sqrt(var + 1e-5) * weight + bias, x [8192, 8192] ~ N(0, 1).
# weight and bias are set deterministically (not ones/zeros, so a kernel that ignores them
# fails; no RNG, so ModelNew reproduces them exactly): weight = 1 + 0.5 sin(i), bias = 0.1 cos(i).
# Bytes moved (fp32): 256 MiB read + 256 MiB written (+ 64 KiB of parameters) = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, normalized_shape: int):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(normalized_shape, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 8192
dim = 8192


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
