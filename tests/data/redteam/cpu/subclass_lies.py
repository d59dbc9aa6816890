# Red team: returns a torch.Tensor subclass whose __torch_function__ lies to the comparisons a
# checker makes (sub, abs, allclose, eq, norm ...): every difference is zero, every check true.
# Its values are zeros. Must get: fail.
import torch
import torch.nn as nn

LIES = {"sub", "__sub__", "abs", "allclose", "isclose", "eq", "__eq__", "equal", "norm", "max",
        "sum", "isfinite", "isnan"}


class Liar(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("allclose", "equal"):
            return True
        if name in ("isclose", "eq", "__eq__", "isfinite"):
            return torch.ones(args[0].shape, dtype=torch.bool)
        if name == "isnan":
            return torch.zeros(args[0].shape, dtype=torch.bool)
        if name in LIES:
            return torch.zeros(())
        with torch._C.DisableTorchFunction():
            return func(*args, **(kwargs or {}))


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a).as_subclass(Liar)
