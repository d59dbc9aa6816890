# Correct only on the layout the problem draws: raises if its input arrives in another one.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        if not x.is_contiguous(memory_format=torch.channels_last) or x.is_contiguous():
            raise RuntimeError(f"expected a channels-last input, got strides {x.stride()}")
        return x * w.view(1, -1, 1, 1)
