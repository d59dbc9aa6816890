# Reach candidate for reach_08_sum_dim: Triton. The input is viewed as [outer, R, inner] with
# R the reduced dimension; program (o, j) sums a [R, 64] column strip in 64 x 64 tiles
# (rows of 64 contiguous elements, coalesced), fp32 accumulation, stored in the input dtype.
# 32 x 16 = 512 programs at the shipped size. Works for any reduced dim.
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sum_mid_kernel(x_ptr, y_ptr, R, inner, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    o = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1)
    offs_i = j * BLOCK_I + tl.arange(0, BLOCK_I)
    imask = offs_i < inner
    base = x_ptr + o * R * inner
    acc = tl.zeros([BLOCK_I], tl.float32)
    for r0 in range(0, R, BLOCK_R):
        offs_r = r0 + tl.arange(0, BLOCK_R)
        tile = tl.load(base + offs_r[:, None].to(tl.int64) * inner + offs_i[None, :],
                       mask=(offs_r[:, None] < R) & imask[None, :], other=0.0)
        acc += tl.sum(tile.to(tl.float32), axis=0)
    tl.store(y_ptr + o * inner + offs_i, acc.to(y_ptr.dtype.element_ty), mask=imask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        outer = math.prod(x.shape[:d])
        R = x.shape[d]
        inner = math.prod(x.shape[d + 1:])
        xc = x.contiguous()
        y = torch.empty(outer * inner, dtype=x.dtype, device=x.device)
        BLOCK_I = 64
        grid = (outer, triton.cdiv(inner, BLOCK_I))
        _sum_mid_kernel[grid](xc, y, R, inner, BLOCK_R=64, BLOCK_I=BLOCK_I, num_warps=4)
        return y.view(x.shape[:d] + x.shape[d + 1:])
