# Red team's positive control on the torch.rand ReLU problem: torch.relu. Must get: pass.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
