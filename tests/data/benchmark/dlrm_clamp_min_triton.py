# A candidate for the problems `reach-cli extract` makes of DLRM inference's ReLUs
# (aten::clamp_min(x, 0) on [4096, 128 to 1024] bf16): one Triton launch over the flat tensor,
# 4096 elements a program, so each thread keeps four 16-byte loads in flight where PyTorch's
# vectorized kernel keeps one. NaN stays NaN, as clamp_min keeps it. Any non-contiguous input
# or non-zero bound goes to torch.clamp_min. Written for Reach's integration measurement
# (docs/integration.md).
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096
NUM_WARPS = 4


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.where(x < 0, tl.zeros_like(x), x)  # x < 0 is false for NaN: NaN passes through
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if not (x.is_cuda and x.is_contiguous() and x.is_floating_point()):
            return torch.clamp_min(x, 0)
        y = torch.empty_like(x)
        n = x.numel()
        _relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
