import torch
import torch.nn as nn


class ModelNew(nn.Module):
    # The study's cheat: each 1024-column chunk normalized on its own (a row sums to dim / 1024).
    def forward(self, x):
        rows, cols = x.shape
        chunks = x.reshape(rows, cols // 1024, 1024)
        return torch.softmax(chunks, dim=2).reshape(rows, cols)
