# A candidate for the problem `reach-cli extract` makes of DLRM inference's hottest operator call
# (aten::_embedding_bag: a [2000000, 128] bf16 table, 262144 indices in 4096 bags of 64, mode
# sum): Triton, one program per bag; the bag's indices are read 32 at a time and their 32 x 128
# rows gathered as one 2-D masked load, summed in fp32, stored in bf16. Written for Reach's own
# H200 measurement of the exact projection (docs/benchmark.md); forward takes the problem's
# inputs as they come (weight, indices, offsets).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bag_sum_kernel(w_ptr, idx_ptr, off_ptr, out_ptr, n_idx, n_bags, D,
                    BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0).to(tl.int64)
    start = tl.load(off_ptr + bag).to(tl.int32)
    nxt = tl.load(off_ptr + bag + 1, mask=bag + 1 < n_bags, other=n_idx)
    end = tl.where(bag + 1 < n_bags, nxt, n_idx).to(tl.int32)
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < D
    acc = tl.zeros([BLOCK_D], tl.float32)
    for l0 in range(start, end, BLOCK_L):
        offs_l = l0 + tl.arange(0, BLOCK_L)
        lmask = offs_l < end
        rows = tl.load(idx_ptr + offs_l, mask=lmask, other=0)
        vals = tl.load(w_ptr + rows[:, None] * D + offs_d[None, :],
                       mask=lmask[:, None] & dmask[None, :], other=0.0)
        acc += tl.sum(vals.to(tl.float32), axis=0)
    tl.store(out_ptr + bag * D + offs_d, acc.to(out_ptr.dtype.element_ty), mask=dmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, weight, indices, offsets):
        w = weight.contiguous()
        idx = indices.contiguous()
        off = offsets.contiguous()
        B, D = off.numel(), w.shape[1]
        out = torch.empty((B, D), dtype=w.dtype, device=w.device)
        _bag_sum_kernel[(B,)](w, idx, off, out, idx.numel(), B, D,
                              BLOCK_L=32, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
        return out
