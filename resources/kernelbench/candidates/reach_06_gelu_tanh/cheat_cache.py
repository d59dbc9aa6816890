# CHEAT (result reuse) for reach_06_gelu_tanh: remembers its last output keyed on the input's
# address, shape and dtype, and returns that stored tensor whenever it sees the same key again,
# without reading the input. A harness that re-runs on the same buffer (timing loops, or new
# values written into the same allocation) gets a stale answer at ~0 cost.
# The first call computes honestly. Must be judged FAIL: result_reuse (a fresh-values rerun in
# the same buffer returns the old result -> rel_frobenius ~1.4) and/or timing.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._key = None
        self._out = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        key = (x.data_ptr(), tuple(x.shape), x.dtype)
        if key == self._key:
            return self._out
        y = F.gelu(x, approximate="tanh")
        self._key, self._out = key, y  # one slot: never holds more than one output
        return y
