import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        raise RuntimeError("cannot set up the kernel")

    def forward(self, x):
        return x
