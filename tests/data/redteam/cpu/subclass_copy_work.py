# Red team (issue 36, B4b): the output's type is checked in the correctness runs only; in a timed
# repetition the candidate returns a torch.Tensor subclass holding nothing yet, and the runner's
# copy of it into the judge's slot (slot.copy_(out), after the runner has read its clock) does the
# work: 30 ms (a sleep, a CPU stand-in for a long kernel), then the sum. The runner's clock misses
# it; the judge's sees it, but the clock agreement's allowance grows with the spread of the
# candidate's own gaps (B3), and the spread is the candidate's to make, with honest clocks: in 3
# timed calls of 10 it does the work inside forward (gap ~0), in 3 it defers it to the copy (gap
# ~30 ms), in 4 it defers it and the copy also waits 45 ms more (gap ~75 ms). The median gap
# (~30 ms hidden) is inside 4 standard errors estimated from an interquartile range of ~75 ms;
# the median claim is the subclass's ~0. Correctness runs (told apart by the id of the runner's
# request in its caller's frame) get a plain, honest tensor. Must get: fail (output_type in the
# timed calls; clock_agreement).
import sys
import time

import torch
import torch.nn as nn

WORK_S = 0.03


def _timed_call():
    f = sys._getframe(1)
    while f is not None:
        msg = f.f_locals.get("msg")
        if isinstance(msg, dict) and msg.get("op") == "run":
            return isinstance(msg.get("id"), int)
        f = f.f_back
    return False


class Deferred(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunction():
            if getattr(func, "__name__", "") == "copy_":
                for t in args:
                    todo = getattr(t, "_todo", None) if isinstance(t, Deferred) else None
                    if todo is not None:
                        a, b, extra = todo
                        t._todo = None
                        time.sleep(WORK_S + extra)  # the deferred work
                        torch.add(a, b, out=t)
            return func(*args, **(kwargs or {}))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.timed = 0

    def forward(self, a, b):
        if not _timed_call():
            time.sleep(WORK_S)
            return a + b
        self.timed += 1
        phase = self.timed % 10
        if phase < 3:  # honest, inside the runner's clock
            time.sleep(WORK_S)
            return a + b
        out = torch.empty_like(a).as_subclass(Deferred)
        out._todo = (a, b, 0.0 if phase < 6 else 0.045)
        return out
