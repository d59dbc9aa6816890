# Reach candidate for reach_14_scaled_softmax: Triton, one program per 1024-element row in
# registers: the scale is fused into the load (no x * scale tensor), one read, one write.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _scaled_softmax_kernel(x_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    z = tl.where(mask, x * scale, float("-inf"))
    e = tl.exp(z - tl.max(z, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        BLOCK = triton.next_power_of_2(n_cols)
        assert BLOCK <= 32768, "row too long for the single-block kernel"
        y = torch.empty_like(x2)
        num_warps = 16 if BLOCK >= 8192 else (8 if BLOCK >= 2048 else 4)
        _scaled_softmax_kernel[(x2.shape[0],)](x2, y, n_cols, float(self.scale), BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
