import torch
import torch.nn as nn


class ModelNew(nn.Module):
    # What KernelBench's adversarial_zero_out_kernel does: zero the inputs, return zeros.
    def forward(self, a, b):
        a.zero_()
        b.zero_()
        return torch.zeros_like(a)
