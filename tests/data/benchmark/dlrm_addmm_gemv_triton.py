# A candidate for the problem `reach-cli extract` makes of DLRM inference's last linear layer
# (aten::addmm: bias [1] + [4096, 256] @ [256, 1], bf16, the weight transposed): one Triton
# launch, each program the dot products of a block of rows with the weight column, summed in fp32
# and the bias added before rounding, as cuBLAS rounds alpha*A@B + beta*C. PyTorch runs this call
# as two kernels: the bias broadcast into the result (the direct copy the profile counts as
# addressable) and cuBLAS's GEMM for N = 1 on top of it. Any other shape, layout or type goes to
# torch.addmm. Written for Reach's integration measurement (docs/integration.md).
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = 16  # 256 programs for 4096 rows, 32 elements (4 x 16 bytes) a thread
NUM_WARPS = 4


@triton.jit
def _gemv_bias_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, stride_xm, stride_wk,
                      K: tl.constexpr, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    ks = tl.arange(0, K)
    rmask = rows < M
    x = tl.load(x_ptr + rows[:, None] * stride_xm + ks[None, :], mask=rmask[:, None], other=0.0)
    w = tl.load(w_ptr + ks * stride_wk)
    acc = tl.sum(x.to(tl.float32) * w.to(tl.float32)[None, :], axis=1)
    acc += tl.load(b_ptr).to(tl.float32)
    tl.store(y_ptr + rows, acc.to(y_ptr.dtype.element_ty), mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, bias, mat1, mat2):
        M, K = mat1.shape if mat1.dim() == 2 else (0, 0)
        fits = (mat1.is_cuda and mat1.dim() == 2 and mat2.dim() == 2 and mat2.shape == (K, 1)
                and bias.numel() == 1 and mat1.stride(1) == 1
                and mat1.dtype == mat2.dtype == bias.dtype
                and mat1.dtype in (torch.bfloat16, torch.float16, torch.float32)
                and 16 <= K <= 1024 and K == triton.next_power_of_2(K))
        if not fits:
            return torch.addmm(bias, mat1, mat2)
        y = torch.empty((M, 1), dtype=mat1.dtype, device=mat1.device)
        _gemv_bias_kernel[(triton.cdiv(M, BLOCK_M),)](
            mat1, mat2, bias, y, M, mat1.stride(0), mat2.stride(0), K=K, BLOCK_M=BLOCK_M,
            num_warps=NUM_WARPS)
        return y
