# A candidate for the problem `reach-cli extract` makes of DLRM inference's feature concat
# (aten::cat of nine [4096, 128] bf16 tensors along dim 1), second try after
# dlrm_cat_triton.py (0.93x, then 0.48x on the H200): each program now takes BLOCK_R = 8 rows,
# so a thread moves 16 bytes of every input (8 bf16, one vector load), and all nine loads are
# issued before the first store, nine vectors in flight per thread where the first try had one
# 8-byte load between stores. 512 programs for 4096 rows. Other shapes go to torch.cat.
# Written for Reach's integration measurement (docs/integration.md).
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_R = 8
NUM_WARPS = 4


@triton.jit
def _cat9_kernel(x0, x1, x2, x3, x4, x5, x6, x7, x8, y_ptr, R, D: tl.constexpr,
                 BLOCK_R: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, D)
    mask = (rows < R)[:, None]
    src = rows[:, None] * D + cols[None, :]
    dst = y_ptr + rows[:, None] * (9 * D) + cols[None, :]
    v0 = tl.load(x0 + src, mask=mask)
    v1 = tl.load(x1 + src, mask=mask)
    v2 = tl.load(x2 + src, mask=mask)
    v3 = tl.load(x3 + src, mask=mask)
    v4 = tl.load(x4 + src, mask=mask)
    v5 = tl.load(x5 + src, mask=mask)
    v6 = tl.load(x6 + src, mask=mask)
    v7 = tl.load(x7 + src, mask=mask)
    v8 = tl.load(x8 + src, mask=mask)
    tl.store(dst, v0, mask=mask)
    tl.store(dst + D, v1, mask=mask)
    tl.store(dst + 2 * D, v2, mask=mask)
    tl.store(dst + 3 * D, v3, mask=mask)
    tl.store(dst + 4 * D, v4, mask=mask)
    tl.store(dst + 5 * D, v5, mask=mask)
    tl.store(dst + 6 * D, v6, mask=mask)
    tl.store(dst + 7 * D, v7, mask=mask)
    tl.store(dst + 8 * D, v8, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, *xs):
        x = xs[0]
        same = (len(xs) == 9 and x.is_cuda and x.dim() == 2
                and all(t.shape == x.shape and t.dtype == x.dtype and t.is_contiguous()
                        and t.device == x.device for t in xs)
                and x.shape[1] == triton.next_power_of_2(x.shape[1]))
        if not same:
            return torch.cat(list(xs), 1)
        R, D = x.shape
        y = torch.empty((R, 9 * D), dtype=x.dtype, device=x.device)
        _cat9_kernel[(triton.cdiv(R, BLOCK_R),)](*xs, y, R, D=D, BLOCK_R=BLOCK_R,
                                                 num_warps=NUM_WARPS)
        return y
