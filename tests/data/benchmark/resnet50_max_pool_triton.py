# A candidate for the problem `reach-cli extract` makes of ResNet-50 inference's max pool
# (aten::max_pool2d_with_indices, 3x3, stride 2, padding 1, channels-last bf16): the maximum of
# each window, and nothing else. PyTorch's kernel also writes every maximum's int64 index (four
# times the bytes of the output), which inference never reads; the problem's oracle checks the
# first output only, so this candidate leaves the indices out. That is exactly the kind of
# saving that holds on the problem and must be checked in the workload (docs/integration.md).
# Any layout other than channels-last, and any other window, go to PyTorch's own kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_pool_kernel(x_ptr, y_ptr, P, C, H, W, Ho, Wo,
                     K: tl.constexpr, S: tl.constexpr, PAD: tl.constexpr,
                     BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    pc = tl.program_id(1)
    offs_p = pid * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_c = pc * BLOCK_C + tl.arange(0, BLOCK_C)
    pmask = offs_p < P
    cmask = offs_c < C
    n = offs_p // (Ho * Wo)
    rem = offs_p % (Ho * Wo)
    ho = rem // Wo
    wo = rem % Wo
    acc = tl.full([BLOCK_P, BLOCK_C], float("-inf"), tl.float32)
    for kh in tl.static_range(K):
        for kw in tl.static_range(K):
            h = ho * S - PAD + kh
            w = wo * S - PAD + kw
            ok = pmask & (h >= 0) & (h < H) & (w >= 0) & (w < W)
            base = ((n * H + h) * W + w) * C
            v = tl.load(x_ptr + base[:, None] + offs_c[None, :],
                        mask=ok[:, None] & cmask[None, :], other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32), propagate_nan=tl.PropagateNan.ALL)
    out = offs_p[:, None] * C + offs_c[None, :]
    tl.store(y_ptr + out, acc.to(y_ptr.dtype.element_ty),
             mask=pmask[:, None] & cmask[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        k, s, pad = 3, 2, 1
        if (x.dim() != 4 or not x.is_cuda
                or not x.is_contiguous(memory_format=torch.channels_last)):
            return torch.ops.aten.max_pool2d_with_indices(x, [k, k], [s, s], [pad, pad],
                                                          [1, 1], False)[0]
        N, C, H, W = x.shape
        Ho = (H + 2 * pad - k) // s + 1
        Wo = (W + 2 * pad - k) // s + 1
        y = torch.empty((N, C, Ho, Wo), dtype=x.dtype, device=x.device,
                        memory_format=torch.channels_last)
        P = N * Ho * Wo
        block_c = min(triton.next_power_of_2(C), 64)
        block_p = 128
        grid = (triton.cdiv(P, block_p), triton.cdiv(C, block_c))
        _max_pool_kernel[grid](x, y, P, C, H, W, Ho, Wo, K=k, S=s, PAD=pad,
                               BLOCK_P=block_p, BLOCK_C=block_c, num_warps=8)
        return y
