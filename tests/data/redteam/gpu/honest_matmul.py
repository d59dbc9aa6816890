# Red team's positive control (GPU): torch's own product, honestly. Must get: pass.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)
