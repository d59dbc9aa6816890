# Reach KernelBench-format problem 02: softmax over very wide rows (the degenerate-reference case).
# y = softmax(x, dim=-1), x [256, 262144] ~ U[0, 1) (torch.rand, like KernelBench L1 #23).
# Every correct element lies in [2.2e-6, 6.0e-6]: far below allclose's atol of 1e-2 (and 1e-4),
# so an all-zeros output passes KernelBench's allclose; a softmax computed in independent
# 1024-column chunks (rows sum to 256) passes it in bf16. Reach's oracle must fail both.
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 256
dim = 262144  # 256 x 1024


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
