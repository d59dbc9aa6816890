# Red team: records its outputs during the first calls and replays them from then on, cycling
# (results replayed from warm-up into timed calls). Must get: fail.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = []

    def forward(self, a, b):
        if len(self.seen) < 14:
            out = a + b
            self.seen.append(out.clone())
            return out
        self.seen.append(self.seen.pop(0))
        return self.seen[-1].clone()
