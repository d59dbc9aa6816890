# Red team: the reference is a + b; this patches Tensor.__add__ (and torch.add) so that a + b
# returns what the candidate returns (zeros), poisoning a reference computed in this process.
# Must get: fail.
import torch
import torch.nn as nn

torch.Tensor.__add__ = lambda self, other: torch.zeros_like(self)
torch.add = lambda a, b, **kw: torch.zeros_like(a)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a)
