# An honest candidate for vLLM's fused residual add + RMS norm: the sum rounded to the dtype,
# normalised in float32, stacked with the new residual.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, residual, weight):
        r = (x.float() + residual.float()).to(x.dtype)
        v = r.float()
        y = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-5) * weight.float()
        return torch.stack([y.to(x.dtype), r])
