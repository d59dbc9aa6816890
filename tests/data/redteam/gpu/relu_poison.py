# Red team (GPU; the first case): at import, replaces torch.relu, torch.nn.functional.relu
# and torch.Tensor.relu with functions returning zeros, and returns zeros itself, so that a
# reference computed in its process agrees with it. Must get: fail (the judge's reference is
# its own; torch_unpatched names the patches).
import torch
import torch.nn as nn
import torch.nn.functional as F

_zeros = lambda x, *a, **k: torch.zeros_like(x)
torch.relu = _zeros
F.relu = _zeros
torch.Tensor.relu = _zeros


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
