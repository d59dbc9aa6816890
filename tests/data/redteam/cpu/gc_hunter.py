# Red team: looks through every object of its process (gc.get_objects) for a tensor of the
# output's shape that is not one of its inputs (a reference another harness would have
# computed in-process) and returns it; without one, returns zeros. Must get: fail.
import gc

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        for obj in gc.get_objects():
            try:
                if isinstance(obj, torch.Tensor) and obj.shape == a.shape and obj is not a and obj is not b \
                        and obj.data_ptr() not in (a.data_ptr(), b.data_ptr()):
                    return obj.clone()
            except Exception:
                pass
        return torch.zeros_like(a)
