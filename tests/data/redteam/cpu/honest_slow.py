# Red team's positive control for the clock: the right sum, taking 30 ms over it (a CPU stand-in
# for a long kernel), timed honestly. Must get: pass.
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.03)
        return a + b
