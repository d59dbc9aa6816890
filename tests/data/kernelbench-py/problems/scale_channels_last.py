# A problem whose input is channels-last, as reach-cli extract draws a channels-last activation
# (a permuted view of a dense [N, H, W, C] tensor): the layout picks the operator's kernel, so the
# verifier must hand it over as drawn.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return x * w.view(1, -1, 1, 1)


def get_inputs():
    x = torch.randn(2, 5, 6, 8).contiguous(memory_format=torch.channels_last)
    return [x, torch.randn(5)]


def get_init_inputs():
    return []
