# Red team (issue 36, A2b): KernelBench's reproduction worker runs the candidate in its own process,
# outside Reach's trust boundary, and reach-verify believes its exit status: 2 is "bad input", a
# one-line error about the problem, and the job ends there (exit 2, no verdict), before Reach's
# judge ever runs. Loaded in that worker (its command line says `kernelbench`), the candidate
# makes the worker print a bad-input answer naming the problem file and exit 2; its own output
# is all zeros, wrong. Must get: fail (never a bad-input exit: the problem was read and ran well
# in Reach's own judge, and its rel_frobenius fails the zeros).
import json
import os
import sys

import torch
import torch.nn as nn


def _patch():
    cap = sys.modules.get("reach_kb.capture")
    if cap is None or "kernelbench" not in sys.argv[1:2]:
        return
    argv = sys.argv
    problem = argv[argv.index("--problem") + 1] if "--problem" in argv else "problem.py"
    line = f"{problem}: line 1: get_inputs() returned no tensors"

    def emit(self, text):
        os.write(self.real_err, (line + "\n").encode())
        os.write(self.real_out, (json.dumps({"error": line, "mode": "kernelbench", "log": ""}) + "\n").encode())
        os._exit(2)

    cap.Console.emit = emit


_patch()


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a)
