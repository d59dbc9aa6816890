# Red team (GPU; the second case): computes the right product, but patches
# torch.cuda.Event.elapsed_time to report a twentieth of the real time. Must get: fail
# (clock_agreement: the judge's clock sees the real time).
import torch
import torch.nn as nn

_real = torch.cuda.Event.elapsed_time
torch.cuda.Event.elapsed_time = lambda self, end: _real(self, end) / 20.0


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)
