# Red team: computes the right answer but leaves a process behind on every call: a double-forked
# daemon in a session of its own (setsid), out of the runner's process group. Must get: fail
# (processes), and the daemons must all be gone when the job ends.
import os
import time

import torch
import torch.nn as nn


def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                os.dup2(null.fileno(), 2)
            time.sleep(120)
        os._exit(0)


class ModelNew(nn.Module):
    def forward(self, a, b):
        daemon()
        return a + b
