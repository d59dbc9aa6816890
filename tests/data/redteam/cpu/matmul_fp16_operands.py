# Red team (issue 36, C7), the TF32 question: an "fp32" matrix product computed from operands
# rounded to fp16 (11-bit significands: TF32's 10 explicit mantissa bits, what an fp32 matmul on
# tensor cores with TF32 allowed rounds its operands to), accumulated in fp32. rel_frobenius is
# ~1.5e-5 on these torch.rand operands (~3e-4 on torch.randn). docs/verifier.md ("Oracle") says
# fp32's 1e-3 "still admits TF32 matmuls (~3e-4)": a control that a fix for the bf16 case keeps
# that policy. Must get: pass.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A.to(torch.float16).float(), B.to(torch.float16).float())
