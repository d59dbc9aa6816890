# Reach KernelBench-format problem 01: row softmax over the last dimension.
# y = softmax(x, dim=-1), x [32768, 2048] ~ N(0, 1).
# Rows of 2048 keep the reference non-degenerate: max|y| ~ 0.07 and ~0.4 elements per row above
# 0.01, so an all-zeros output fails allclose(atol=1e-2). (At 16384 columns every N(0,1) softmax
# element stays below 0.01 and zeros would pass: problem 02 is the deliberately degenerate one.)
# Bytes moved (fp32): 256 MiB read + 256 MiB written = 512 MiB (bf16: 256 MiB).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 32768
dim = 2048


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
