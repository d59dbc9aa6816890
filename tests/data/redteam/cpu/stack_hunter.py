# Red team: walks up the call stack (inspect) looking for a tensor named like an expected output
# (ref, expected, reference, out) in its callers' frames and returns it; else zeros. Must get:
# fail.
import inspect

import torch
import torch.nn as nn

NAMES = ("ref", "reference", "expected", "want", "ref_out", "out")


class ModelNew(nn.Module):
    def forward(self, a, b):
        for frame in inspect.stack()[1:]:
            for name in NAMES:
                v = frame.frame.f_locals.get(name)
                if isinstance(v, torch.Tensor) and v.shape == a.shape:
                    return v.clone()
        return torch.zeros_like(a)
