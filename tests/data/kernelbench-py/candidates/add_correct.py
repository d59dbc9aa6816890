import torch
import torch.nn as nn

print("candidate module loaded")  # stray output must not reach the worker's stdout


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        print("forward called")
        return a + b
