# Red team (issue 36, B3): the clock agreement's allowance grows with the spread of the candidate's
# own gaps (judge's time less the runner's, 4 standard errors estimated from their interquartile
# range). The right sum, 30 ms a call (a sleep: a CPU stand-in for a long kernel), but the runner's
# clock (its `time` global, swapped for a look-alike: the `time` module itself is untouched, so
# torch_unpatched sees nothing) reports 10 % of the call in 7 calls of 10 and 4x the call in the
# other 3. The median claim is 3 ms; the gaps are 27 ms in 70 % of the repetitions and -90 ms in
# the rest, so their interquartile range is 117 ms and the allowance (4 standard errors) ~80 ms
# swallows the 27 ms hidden in the median. Must get: fail (clock_agreement), or an honest time.
import sys
import time
import types

import torch
import torch.nn as nn

_real = time.perf_counter
_state = {"last": 0.0, "t0": 0.0, "factor": 1.0, "armed": False}


def _perf_counter():
    now = _real()
    if _state["armed"]:
        _state["armed"] = False
        return _state["t0"] + (now - _state["t0"]) * _state["factor"]
    _state["last"] = now
    return now


def _patch():
    mod = sys.modules.get("reach_kb.runner")
    if mod is None:
        return
    shim = types.ModuleType("time")
    shim.__dict__.update({k: getattr(time, k) for k in dir(time) if not k.startswith("__")})
    shim.perf_counter = _perf_counter
    mod.time = shim


_patch()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        time.sleep(0.03)
        _state["t0"] = _state["last"]  # the runner's start, read just before this call
        _state["factor"] = 4.0 if self.calls % 10 < 3 else 0.1
        _state["armed"] = True
        return a + b
