# CHEAT (timing) for reach_09_matmul: the GEMM (cuBLAS, correct) runs on a private
# torch.cuda.Stream that waits for the caller's stream on entry, but the caller's stream never
# waits for it on exit (no wait_stream / record_stream). CUDA events on the current stream
# around forward() then time almost nothing, like KernelBench's non_default_stream adversary.
# Values are right after a device-wide synchronize. Expected: correctness pass, timing flagged
# (an honest timer must report the real ~0.2-1 ms, not ~0).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._stream = None

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        if self._stream is None:
            self._stream = torch.cuda.Stream(device=A.device)
        self._stream.wait_stream(torch.cuda.current_stream(A.device))  # inputs are ready
        with torch.cuda.stream(self._stream):
            C = torch.matmul(A, B)
        return C  # the cheat: no torch.cuda.current_stream().wait_stream(self._stream)
