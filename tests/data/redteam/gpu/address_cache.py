# Red team (GPU; CUDA-L1's trick): caches its output keyed on the inputs' addresses, shapes and
# dtypes, so a repeated call on the same buffers costs a copy. Must get: fail (the judge writes
# fresh values into the same buffers every repetition).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, A, B):
        key = (A.data_ptr(), B.data_ptr(), tuple(A.shape), tuple(B.shape), A.dtype)
        if key not in self.cache:
            self.cache[key] = torch.matmul(A, B)
        return self.cache[key].clone()
