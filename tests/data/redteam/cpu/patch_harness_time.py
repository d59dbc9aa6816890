# Red team: finds Reach's runner in its own process and replaces the function that runs a call
# with one that reports a time 50x shorter than the call took (30 ms of it: a CPU stand-in for a
# long kernel). Must get: fail (clock_agreement).
import sys
import time

import torch
import torch.nn as nn


def _patch():
    mod = sys.modules.get("reach_kb.runner")
    if mod is None:
        return
    real = mod.Runner._op_run

    def lying(self, msg, fds):
        reply = real(self, msg, fds)
        if reply.get("e_us"):
            reply["e_us"] = reply["e_us"] / 50.0
        return reply

    mod.Runner._op_run = lying


_patch()


class ModelNew(nn.Module):
    def forward(self, a, b):
        time.sleep(0.03)
        return a + b
