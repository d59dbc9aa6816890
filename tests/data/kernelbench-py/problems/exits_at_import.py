# A problem file that calls sys.exit(0) while it is loaded: the problem's fault, one line (exit 2).
import sys

import torch
import torch.nn as nn

sys.exit(0)


class Model(nn.Module):
    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.randn(4, 4), torch.randn(4, 4)]


def get_init_inputs():
    return []
