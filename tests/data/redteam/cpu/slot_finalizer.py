# Red team (issue 36, B4c): the candidate writes the judge's slot itself, so the runner's copy of
# its output into the slot is a no-op. It finds the slot in its process (gc: Reach's runner holds
# it as a tensor), returns a plain torch.Tensor view of it at once, and writes the answer there
# only when the runner drops that view (a weakref finalizer: `out = None`, after the runner has
# read its clock and before it answers): 30 ms (a sleep, a CPU stand-in for a long kernel), then
# the sum. The runner's clock misses the work; the judge's sees it, but the clock agreement's
# allowance grows with the spread of the candidate's own gaps (B3), which it makes with honest
# clocks: 3 calls of 10 work inside forward (gap ~0), 3 defer 30 ms (gap ~30 ms), 4 defer 75 ms
# (gap ~75 ms). Every output it hands over is an exact torch.Tensor, aliases no input, and holds
# the right values when the judge reads them. Must get: fail (clock_agreement).
import gc
import sys
import time
import weakref

import torch
import torch.nn as nn

WORK_S = 0.03


def _runner():
    mod = sys.modules.get("reach_kb.runner")
    if mod is None:
        return None
    for o in gc.get_objects():
        if type(o) is getattr(mod, "Runner", None):
            return o
    return None


def _finish(slot, a, b, seconds):
    time.sleep(seconds)  # the deferred work
    torch.add(a, b, out=slot)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.runner = _runner()
        self.calls = 0

    def forward(self, a, b):
        self.calls += 1
        phase = self.calls % 10
        slot = getattr(self.runner, "slot", None)
        if phase < 3 or slot is None or slot.shape != a.shape:
            time.sleep(WORK_S)
            return a + b
        out = slot.view_as(slot)  # a new tensor object over the slot's memory
        weakref.finalize(out, _finish, slot, a, b, WORK_S + (0.0 if phase < 6 else 0.045))
        return out
