# Red team: caches its results keyed on the inputs' contents (a few elements and their sum), so
# a repeated input set costs a lookup; the cache never learns anything new after 20 calls.
# Must get: fail (fresh inputs every repetition make every lookup a miss or a stale hit).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}
        self.last = None

    def forward(self, a, b):
        key = (round(float(a.flatten()[:4].sum()), 4), round(float(b.flatten()[:4].sum()), 4))
        if key in self.cache:
            return self.cache[key].clone()
        if len(self.cache) >= 20 and self.last is not None:
            return self.last.clone()  # give up computing: the most recent answer
        out = a + b
        self.cache[key] = out.clone()
        self.last = out
        return out
