import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = a + b
        out[0, 0] = float("nan")
        return out
