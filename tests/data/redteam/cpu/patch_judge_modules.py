# Red team: imports Reach's own verdict code in its process and rewrites it to pass everything
# (aggregate, the oracle's comparison). Those modules do not judge in the runner, so nothing
# changes; its values are zeros. Must get: fail.
import sys

import torch
import torch.nn as nn

for name in list(sys.modules):
    if name.startswith("reach_kb"):
        m = sys.modules[name]
        for attr in ("compare", "_aggregate", "sampled", "values", "clockAgreement", "run"):
            if hasattr(m, attr):
                try:
                    setattr(m, attr, lambda *a, **k: None)
                except Exception:
                    pass


class ModelNew(nn.Module):
    def forward(self, a, b):
        return torch.zeros_like(a)
