# Red team (GPU; the third case): correct for its first 40 calls, then returns
# torch.empty_like(x) at no cost (whatever the allocator's freed block holds). Must get: fail
# (timed_outputs, and the roofline floor for a large output).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= 40:
            return torch.relu(x)
        return torch.empty_like(x)
