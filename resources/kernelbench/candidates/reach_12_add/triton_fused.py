# Reach candidate for reach_12_add: Triton elementwise add over the flattened tensors, 8192
# elements per program. fp32 add, stored in the output dtype (the bf16 result is the
# correctly rounded sum, like PyTorch's).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_kernel(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (a + b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        assert a.shape == b.shape and a.dtype == b.dtype
        ac, bc = a.contiguous(), b.contiguous()
        y = torch.empty_like(ac)
        n = ac.numel()
        BLOCK = 8192
        _add_kernel[(triton.cdiv(n, BLOCK),)](ac, bc, y, n, BLOCK=BLOCK, num_warps=8)
        return y
