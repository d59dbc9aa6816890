# A problem whose get_inputs() raises KeyboardInterrupt: the problem's fault, one line (exit 2),
# never reported as the candidate crashing.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a + b


def get_inputs():
    raise KeyboardInterrupt("in get_inputs")


def get_init_inputs():
    return []
