# Red team: returns an empty tensor at once and leaves a thread that writes the right values into
# it 50 ms later (work done after forward returned, outside any time). Must get: fail (the
# output the judge receives is unwritten; the thread is still running).
import threading
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty_like(a)

        def later():
            time.sleep(0.05)
            out.copy_(a + b)
            while True:
                time.sleep(1)

        threading.Thread(target=later, daemon=True).start()
        return out
