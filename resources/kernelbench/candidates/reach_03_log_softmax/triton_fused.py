# Reach candidate for reach_03_log_softmax: Triton, one program per row, the row held in
# registers: y = x - max - log(sum(exp(x - max))). One read, one write; fp32 arithmetic.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _log_softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    y = x - m - tl.log(s)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.contiguous().view(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        BLOCK = triton.next_power_of_2(n_cols)
        assert BLOCK <= 32768, "row too long for the single-block kernel"
        y = torch.empty_like(x2)
        num_warps = 16 if BLOCK >= 8192 else (8 if BLOCK >= 2048 else 4)
        _log_softmax_kernel[(n_rows,)](x2, y, n_cols, BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
