import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x - torch.logsumexp(x, dim=self.dim, keepdim=True)
