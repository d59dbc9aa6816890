import torch
import torch.nn as nn


class ModelNew(nn.Module):
    # Wrong by 1.0 exactly when the first element of a is positive: some trials pass, some fail.
    def forward(self, a, b):
        return a + b + (1.0 if a[0, 0].item() > 0 else 0.0)
