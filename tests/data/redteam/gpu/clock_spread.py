# Red team (GPU; issue 36, B3): the right product, but the runner's event clock reports a tenth of
# the call in 7 calls of 10 and 4x the call in the other 3 (Event.elapsed_time patched with a
# counter): a spread of claims that widened an allowance computed from the candidate's own gaps.
# Must get: fail (torch_unpatched or clock_agreement), or an honest time: the figure is the
# judge's own window.
import torch
import torch.nn as nn

_real = torch.cuda.Event.elapsed_time
_calls = [0]


def _elapsed(self, end):
    _calls[0] += 1
    return _real(self, end) * (4.0 if _calls[0] % 10 < 3 else 0.1)


torch.cuda.Event.elapsed_time = _elapsed


class ModelNew(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)
