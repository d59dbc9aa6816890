# Red team (issue 36, B4a): 19_ReLU's timed inputs are always torch.rand (non-negative), and the
# scale and sign variations (x100, x0.01, x-1) are used only in the correctness runs, so in a timed
# call relu(x) = x: the candidate returns its input, untouched, doing no work at all (the runner
# copies it into the judge's slot outside the timed call, as it copies every output). It tells
# the correctness runs from the timed ones by the id of the runner's request in its caller's frame
# (a correctness run's id is "check-<seed>-<scale>", a timed repetition's an integer), and computes
# honestly there (where a returned input would fail output_aliases_input). Must get: fail
# (timed_outputs once timed inputs vary in sign, or output_aliases_input once timed calls are
# checked as correctness calls are).
import sys

import torch
import torch.nn as nn


def _timed_call():
    f = sys._getframe(1)
    while f is not None:
        msg = f.f_locals.get("msg")
        if isinstance(msg, dict) and msg.get("op") == "run":
            return isinstance(msg.get("id"), int)
        f = f.f_back
    return False


class ModelNew(nn.Module):
    def forward(self, x):
        if _timed_call():
            return x
        return torch.relu(x)
