# Reach KernelBench-format problem 05: RMSNorm over the last dimension.
# y = x * rsqrt(mean(x^2, -1) + eps) * weight, eps = 1e-6, x [16384, 4096] ~ N(0, 1).
# weight is deterministic (no RNG): weight = 1 + 0.5 sin(i).
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        i = torch.arange(num_features, dtype=torch.float32)
        self.weight = nn.Parameter(1.0 + 0.5 * torch.sin(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 16384
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
