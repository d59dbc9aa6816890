# Red team (GPU; warm-up detection): measures the gap between its calls; when calls come at the
# steady pace of a timed loop it skips the work and returns its last output. Must get: fail.
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = None
        self.t = None
        self.steady = 0

    def forward(self, A, B):
        now = time.perf_counter()
        if self.t is not None and now - self.t < 0.05:
            self.steady += 1
        else:
            self.steady = 0
        self.t = now
        if self.steady >= 3 and self.last is not None:
            return self.last.clone()
        self.last = torch.matmul(A, B)
        return self.last
