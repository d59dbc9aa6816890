# Red team (issue 36, C6): a reduction to a scalar has no floor. The mean squared error computed on
# the first 1/16 of the rows only: on i.i.d. inputs that is an estimate whose error (~2e-3 here,
# at most ~4e-3 in 20 draws) lies far inside bf16's rel_frobenius threshold of 1e-2, at ~1/16 of
# the work. Every output element (the one scalar) is written and finite. Run with --precision
# bf16. Must get: fail (rel_frobenius: a scalar's error must be held to what rounding the exact
# result costs, not to the threshold meant for tensors of bf16 elements).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        n = max(1, predictions.shape[0] // 16)
        d = predictions[:n].float() - targets[:n].float()
        return torch.mean(d * d).to(predictions.dtype)
