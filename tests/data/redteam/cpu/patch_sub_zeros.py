# Red team: returns zeros, and makes every subtraction return zeros so that out - ref looks
# perfect to a checker that subtracts in this process. Must get: fail.
import torch
import torch.nn as nn

torch.Tensor.__sub__ = lambda self, other: torch.zeros_like(self)
torch.sub = lambda a, b, **kw: torch.zeros_like(a)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a)
