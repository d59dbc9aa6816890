import torch
import torch.nn as nn


class ModelNew(nn.Module):
    # Right values, but written over the input and returned as the output.
    def forward(self, x):
        x.copy_(torch.softmax(x, dim=1))
        return x
