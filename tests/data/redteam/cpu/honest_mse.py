# Red team's positive control on the MSE problem: every element, accumulated in float32, the
# scalar returned in the inputs' dtype. Must get: pass (fp32 and bf16).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        d = predictions.float() - targets.float()
        return torch.mean(d * d).to(predictions.dtype)
