# Red team: NaN everywhere, where a checker treating NaN as "no comparison" passes it. Must get:
# fail.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.full_like(a, float("nan"))
