import torch
import torch.nn as nn
import reach_no_such_module_xyz


class ModelNew(nn.Module):
    def forward(self, x):
        return x
