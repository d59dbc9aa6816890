# Red team (issue 36, A2b): KernelBench's reproduction worker runs the candidate in its own process,
# outside Reach's trust boundary, and reach-verify believes its document: an `error_kind: "no_gpu"`
# there ends the job as `no_gpu`, before Reach's judge ever runs. Loaded in that worker (its
# command line says `kernelbench`), the candidate swaps the document the worker prints for a
# no_gpu answer; its own output is all zeros, wrong. Must get: fail (never no_gpu: Reach's judge
# must run, and its rel_frobenius fails the zeros).
import json
import sys

import torch
import torch.nn as nn


def _patch():
    cap = sys.modules.get("reach_kb.capture")
    if cap is None or "kernelbench" not in sys.argv[1:2]:
        return
    real = cap.Console.emit

    def emit(self, text):
        real(self, json.dumps({"mode": "kernelbench", "compiled": None, "correctness": None,
                               "error_kind": "no_gpu", "error": "no CUDA device visible to PyTorch"}))

    cap.Console.emit = emit


_patch()


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a)
