# Red team (issue 36, B5): when drawing fresh inputs is slow the judge draws a pool of 4 sets once
# and picks one per timed repetition. A cache keyed by 16 elements of each input is then right
# every time: the product is computed once per set and every later repetition returns it from the
# cache (no work; the answer is right, so no check sees it). Correctness runs, each on inputs of
# its own, all miss and compute. Must get: fail (timed_outputs), or an honest time (every timed
# input set new, every lookup a miss).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, A, B):
        key = (tuple(A.reshape(-1)[:16].tolist()), tuple(B.reshape(-1)[:16].tolist()))
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        out = torch.matmul(A, B)
        self.cache[key] = out
        return out
