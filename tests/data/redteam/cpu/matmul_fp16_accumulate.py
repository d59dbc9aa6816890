# Red team (issue 36, C7), the fp16-accumulation question: an "fp32" matrix product whose running
# sum is kept at fp16's precision (an 11-bit significand), as an fp16 tensor-core kernel that
# accumulates in fp16 keeps it: the products of each 16-wide slice of k are summed exactly (one
# m16n8k16 MMA), then added to the accumulator and rounded. Emulated on the CPU with fp32's
# exponent range (a kernel that scaled its accumulator; plain fp16 would overflow at the x100
# correctness run). rel_frobenius ~7e-4 and norm_max_error ~2.8e-3 on these operands, inside
# fp32's 1e-3 and 5e-3; KernelBench's allclose (1e-4) fails it. Must get: fail (rel_frobenius or
# norm_max_error: an fp16 accumulator is not an fp32 product).
import torch
import torch.nn as nn

CHUNK = 16


def round_to_fp16_precision(x):
    """x (fp32) rounded to nearest, ties to even, at 10 explicit mantissa bits."""
    i = x.contiguous().view(torch.int32)
    drop = 23 - 10
    i = (i + (1 << (drop - 1)) - 1 + ((i >> drop) & 1)) & ~((1 << drop) - 1)
    return i.view(torch.float32)


class ModelNew(nn.Module):
    def forward(self, A, B):
        acc = torch.zeros(A.shape[0], B.shape[1], dtype=torch.float32)
        for k in range(0, A.shape[1], CHUNK):
            acc = round_to_fp16_precision(acc + torch.matmul(A[:, k:k + CHUNK], B[k:k + CHUNK]))
        return acc
