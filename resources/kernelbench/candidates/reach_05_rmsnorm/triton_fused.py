# Reach candidate for reach_05_rmsnorm: Triton, one program per row of 4096 in registers:
# y = x * rsqrt(mean(x^2) + eps) * weight, fp32 arithmetic, stored in the input dtype.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    r = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n_cols + cols, (x * r * w).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        i = torch.arange(num_features, dtype=torch.float32)
        self.weight = nn.Parameter(1.0 + 0.5 * torch.sin(i))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.contiguous().view(-1, n_cols)
        BLOCK = triton.next_power_of_2(n_cols)
        assert BLOCK <= 32768, "row too long for the single-block kernel"
        y = torch.empty_like(x2)
        num_warps = 16 if BLOCK >= 8192 else (8 if BLOCK >= 2048 else 4)
        _rmsnorm_kernel[(x2.shape[0],)](x2, self.weight.contiguous(), y, n_cols, self.eps,
                                        BLOCK=BLOCK, num_warps=num_warps)
        return y.view(x.shape)
