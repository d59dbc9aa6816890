# Reach candidate for reach_06_gelu_tanh: Triton elementwise kernel, 4096 elements per program.
# Uses 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)), so y = x / (1 + exp(-2u)): no tanh intrinsic
# needed, no cancellation, exact limits (x -> -inf gives -0, x -> +inf gives x). fp32 math.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gelu_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)  # sqrt(2/pi) (x + 0.044715 x^3)
    y = x / (1.0 + tl.exp(-2.0 * u))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        n = xc.numel()
        BLOCK = 4096
        _gelu_tanh_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, BLOCK=BLOCK, num_warps=8)
        return y
