import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a + b + 2e-4
