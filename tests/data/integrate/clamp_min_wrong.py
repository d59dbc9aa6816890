# A candidate that passed nothing: it returns its input unclamped. Integrate's in-place check of
# a substituted call must stop the run and name the problem.
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.clone()
