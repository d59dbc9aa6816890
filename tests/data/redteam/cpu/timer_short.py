# Red team: computes the right sum (and takes 30 ms over it: a CPU stand-in for a long kernel that
# loads no core), but makes the clock that times it run 20x slow (time.perf_counter, the runner's
# CPU timer; on a GPU the same trick patches Event.elapsed_time), so the reported time is a
# twentieth of the real one. Must get: fail (clock_agreement).
import time

import torch
import torch.nn as nn

_real = time.perf_counter
_t0 = _real()
time.perf_counter = lambda: _t0 + (_real() - _t0) / 20.0


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.03)
        return a + b
