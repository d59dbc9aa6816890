# A candidate for DLRM inference's extracted aten::clamp_min problem ([4096, 128] bf16, min 0):
# torch.where instead of the clamp kernel. Its calls are counted (CALLS), so a test can see
# integrate ran it in the workload's place, and only there.
import torch
import torch.nn as nn

CALLS = [0]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        CALLS[0] += 1
        return torch.where(x > 0, x, torch.zeros((), dtype=x.dtype, device=x.device))
