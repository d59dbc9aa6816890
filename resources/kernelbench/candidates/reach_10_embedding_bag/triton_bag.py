# Reach candidate for reach_10_embedding_bag: Triton, one program per bag; the bag's indices
# are read 32 at a time and their 32 x 128 rows gathered as one 2-D masked load (many rows in
# flight per program), summed in fp32, stored in the table's dtype. Good kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bag_sum_kernel(w_ptr, idx_ptr, start_ptr, end_ptr, out_ptr, D,
                    BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0).to(tl.int64)
    start = tl.load(start_ptr + bag).to(tl.int32)
    end = tl.load(end_ptr + bag).to(tl.int32)
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < D
    acc = tl.zeros([BLOCK_D], tl.float32)
    for l0 in range(start, end, BLOCK_L):
        offs_l = l0 + tl.arange(0, BLOCK_L)
        lmask = offs_l < end
        rows = tl.load(idx_ptr + offs_l, mask=lmask, other=0)  # int64 row numbers
        vals = tl.load(w_ptr + rows[:, None] * D + offs_d[None, :],
                       mask=lmask[:, None] & dmask[None, :], other=0.0)
        acc += tl.sum(vals.to(tl.float32), axis=0)
    tl.store(out_ptr + bag * D + offs_d, acc.to(out_ptr.dtype.element_ty), mask=dmask)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        w = self.bag.weight.contiguous()
        D = w.shape[1]
        idx = indices.contiguous()
        starts = offsets.contiguous()
        B = starts.numel()
        ends = torch.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = idx.numel()  # include_last_offset=False: the last bag runs to the end
        out = torch.empty((B, D), dtype=w.dtype, device=w.device)
        _bag_sum_kernel[(B,)](w, idx, starts, ends, out, D,
                              BLOCK_L=32, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
        return out
