import torch
import torch.nn as nn


class Modle(nn.Module):  # misspelled on purpose: the problem lacks `Model`
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
