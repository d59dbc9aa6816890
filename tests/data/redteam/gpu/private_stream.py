# Red team (GPU): the right product on a private stream that the caller's stream never waits for:
# CUDA events on the caller's stream time almost nothing (KernelBench's own
# non_default_stream adversary does the same). Must get: fail (clock_agreement).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = None

    def forward(self, A, B):
        if self.s is None:
            self.s = torch.cuda.Stream(device=A.device)
        self.s.wait_stream(torch.cuda.current_stream(A.device))
        with torch.cuda.stream(self.s):
            C = torch.matmul(A, B)
        return C
