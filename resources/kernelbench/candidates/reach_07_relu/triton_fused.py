# Reach candidate for reach_07_relu: Triton elementwise kernel over the flattened tensor,
# 4096 elements per program. Exact in every dtype.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.maximum(x.to(tl.float32), 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        n = xc.numel()
        BLOCK = 4096
        _relu_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, BLOCK=BLOCK, num_warps=8)
        return y
