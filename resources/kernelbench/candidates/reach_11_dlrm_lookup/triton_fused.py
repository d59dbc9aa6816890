# Reach candidate for reach_11_dlrm_lookup: Triton, ONE launch for all 8 lookups and the concat
# (the DLRM-Bench winning fusion). Program b handles sample b: for each table it gathers the
# P = 20 rows as one [32, 128] masked 2-D load, sums them in fp32 and writes the 128 values
# straight into columns [t*D, (t+1)*D) of the [B, 8*D] output. The 8 tables are 8 pointer
# arguments (no pointer arithmetic between allocations), so the kernel is written for T = 8.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _one_bag(w_ptr, idx_ptr, out_ptr, b, t, B, D, P, T,
             BLOCK_P: tl.constexpr, BLOCK_D: tl.constexpr):
    offs_p = tl.arange(0, BLOCK_P)
    pmask = offs_p < P
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < D
    rows = tl.load(idx_ptr + (t * B + b) * P + offs_p, mask=pmask, other=0)  # indices[t, b, :]
    vals = tl.load(w_ptr + rows[:, None] * D + offs_d[None, :],
                   mask=pmask[:, None] & dmask[None, :], other=0.0)
    acc = tl.sum(vals.to(tl.float32), axis=0)
    tl.store(out_ptr + b * (T * D) + t * D + offs_d, acc.to(out_ptr.dtype.element_ty), mask=dmask)


@triton.jit
def _dlrm8_kernel(w0, w1, w2, w3, w4, w5, w6, w7, idx_ptr, out_ptr, B, D, P,
                  BLOCK_P: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    _one_bag(w0, idx_ptr, out_ptr, b, 0, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w1, idx_ptr, out_ptr, b, 1, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w2, idx_ptr, out_ptr, b, 2, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w3, idx_ptr, out_ptr, b, 3, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w4, idx_ptr, out_ptr, b, 4, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w5, idx_ptr, out_ptr, b, 5, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w6, idx_ptr, out_ptr, b, 6, B, D, P, 8, BLOCK_P, BLOCK_D)
    _one_bag(w7, idx_ptr, out_ptr, b, 7, B, D, P, 8, BLOCK_P, BLOCK_D)


class ModelNew(nn.Module):
    def __init__(self, num_tables: int, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.tables = nn.ModuleList(
            [nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for _ in range(num_tables)])

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        T, B, P = indices.shape
        assert T == 8 == len(self.tables), "the fused kernel is written for 8 tables"
        ws = [t.weight.contiguous() for t in self.tables]
        D = ws[0].shape[1]
        BLOCK_P = triton.next_power_of_2(P)
        assert BLOCK_P <= 128, "pooling too large for one gather tile"
        idx = indices.contiguous()
        out = torch.empty((B, T * D), dtype=ws[0].dtype, device=ws[0].device)
        _dlrm8_kernel[(B,)](*ws, idx, out, B, D, P,
                            BLOCK_P=BLOCK_P, BLOCK_D=triton.next_power_of_2(D), num_warps=4)
        return out
