# Reach candidate for reach_13_residual_layernorm: Triton, one program per row of 4096:
# h = x + residual kept in registers (never written), mean/variance in two register passes,
# affine, one write. fp32 arithmetic (h is not rounded to bf16 first, unlike the eager
# reference in bf16: closer to the exact answer).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_layernorm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    mean = tl.sum(h, axis=0) / n_cols
    d = tl.where(mask, h - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n_cols + cols, (d * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            i = torch.arange(hidden, dtype=torch.float32)
            self.ln.weight.copy_(1.0 + 0.5 * torch.sin(i))
            self.ln.bias.copy_(0.1 * torch.cos(i))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        r2 = residual.contiguous().view(-1, n_cols)
        BLOCK = triton.next_power_of_2(n_cols)
        assert BLOCK <= 32768, "row too long for the single-block kernel"
        y = torch.empty_like(x2)
        num_warps = 16 if BLOCK >= 8192 else (8 if BLOCK >= 2048 else 4)
        _add_layernorm_kernel[(x2.shape[0],)](x2, r2, self.ln.weight.contiguous(), self.ln.bias.contiguous(), y,
                                              n_cols, self.ln.eps, BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
