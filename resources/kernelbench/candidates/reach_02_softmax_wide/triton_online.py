# Reach candidate for reach_02_softmax_wide: Triton, one program per row of 262144 elements,
# a loop over 4096-column blocks: online (running max, rescaled sum) pass, then a write pass.
# Correct for any row length; reads x twice (a 1 MiB fp32 row mostly stays in L2 between the
# passes). Only 256 programs for 132 SMs: fine for correctness, not the fastest split.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_online_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no exp(-inf - -inf) = NaN
        s = s * tl.exp(m - m_safe) + tl.exp(x - m_safe)
        m = m_new
    m_row = tl.max(m, axis=0)
    s_row = tl.sum(s * tl.exp(m - m_row), axis=0)
    inv = 1.0 / s_row
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (tl.exp(x - m_row) * inv).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.contiguous().view(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        y = torch.empty_like(x2)
        BLOCK = min(4096, triton.next_power_of_2(n_cols))
        _softmax_online_kernel[(n_rows,)](x2, y, n_cols, BLOCK=BLOCK, num_warps=16)
        return y.view(x.shape)
