# A candidate for the problems `reach-cli extract` makes of ResNet-50 inference's batch norms
# (aten::native_batch_norm, training=False, channels-last bf16 activations, bf16 parameters):
# y = (x - mean) * rsqrt(var + eps) * weight + bias, in fp32, stored in the input's type. A
# channels-last tensor is a [N*H*W, C] matrix in memory; each program takes a tile of rows and
# channels and computes its channels' scale and shift itself (no extra launches). Any other layout
# goes to PyTorch's own kernel. Written for Reach's integration measurement (docs/integration.md).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _bn_eval_kernel(x_ptr, w_ptr, b_ptr, mean_ptr, var_ptr, y_ptr, M, C, eps,
                    BLOCK_M: tl.constexpr, BLOCK_C: tl.constexpr):
    pm = tl.program_id(0).to(tl.int64)
    pc = tl.program_id(1)
    offs_c = pc * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = offs_c < C
    w = tl.load(w_ptr + offs_c, mask=cmask, other=1.0).to(tl.float32)
    b = tl.load(b_ptr + offs_c, mask=cmask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + offs_c, mask=cmask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + offs_c, mask=cmask, other=1.0).to(tl.float32)
    scale = w / tl.sqrt(var + eps)
    shift = b - mean * scale
    offs_m = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    mask = (offs_m < M)[:, None] & cmask[None, :]
    ptrs = offs_m[:, None] * C + offs_c[None, :]
    x = tl.load(x_ptr + ptrs, mask=mask, other=0.0).to(tl.float32)
    y = x * scale[None, :] + shift[None, :]
    tl.store(y_ptr + ptrs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, weight, bias, running_mean, running_var):
        eps = 1e-5
        if (x.dim() != 4 or not x.is_cuda
                or not x.is_contiguous(memory_format=torch.channels_last)):
            return torch.ops.aten.native_batch_norm(x, weight, bias, running_mean, running_var,
                                                    False, 0.1, eps)[0]
        N, C, H, W = x.shape
        y = torch.empty_like(x)  # keeps channels-last
        M = N * H * W
        block_c = min(triton.next_power_of_2(C), 128)
        block_m = max(16, 8192 // block_c)
        grid = (triton.cdiv(M, block_m), triton.cdiv(C, block_c))
        _bn_eval_kernel[grid](x, weight.contiguous(), bias.contiguous(),
                              running_mean.contiguous(), running_var.contiguous(), y, M, C, eps,
                              BLOCK_M=block_m, BLOCK_C=block_c, num_warps=8)
        return y
