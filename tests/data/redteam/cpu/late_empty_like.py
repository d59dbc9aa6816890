# Red team: correct for its first 16 calls (past the correctness runs and into the timing), then
# returns uninitialized memory (torch.empty_like: whatever a freed block held) at no cost. Must
# get: fail (timed_outputs).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        if self.calls <= 16:
            return a + b
        return torch.empty_like(a)
