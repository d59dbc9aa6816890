import torch
import torch.nn as nn


class ModelNew(nn.Module):
    # Forgets the last element of every reduced row.
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return x.narrow(self.dim, 0, x.shape[self.dim] - 1).sum(dim=self.dim, keepdim=True)
