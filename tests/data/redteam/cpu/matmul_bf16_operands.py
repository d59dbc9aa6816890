# Red team (issue 36, C7): an "fp32" matrix product computed from operands rounded to bf16 (8-bit
# significands), as a bf16 tensor-core kernel would, emulated on the CPU (.to(torch.bfloat16)
# .float()), accumulated in fp32. On torch.rand operands every product is positive, the rounding
# errors cancel against the large common part of each sum, and rel_frobenius is ~1.2e-4, inside
# fp32's 1e-3 (on torch.randn operands it is ~2.4e-3 and fails); KernelBench's own fp32 check
# (allclose, 1e-4) fails it in every trial. Must get: fail (rel_frobenius or norm_max_error: bf16
# operands are not an fp32 product).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A.to(torch.bfloat16).float(), B.to(torch.bfloat16).float())
