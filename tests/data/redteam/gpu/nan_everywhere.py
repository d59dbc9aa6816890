# Red team (GPU): NaN everywhere (a wildcard for checkers that skip NaN). Must get: fail.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.full_like(x, float("nan"))
