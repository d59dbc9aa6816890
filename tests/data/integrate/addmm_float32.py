# A candidate for DLRM inference's extracted aten::addmm problem (bias [1], x [4096, 256], a
# transposed [256, 1] weight, all bf16): the product in float32, rounded to bf16 once. On a CPU
# without bf16 matrix units PyTorch's bf16 addmm is many times slower than float32, so this is a
# real winner there: the CPU test of reach-cli integrate installs it in a small workload. Its
# calls are counted (CALLS).
import torch
import torch.nn as nn

CALLS = [0]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bias, x, w):
        CALLS[0] += 1
        return torch.addmm(bias.float(), x.float(), w.float()).to(x.dtype)
