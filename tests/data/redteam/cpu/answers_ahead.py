# Red team: sends the judge its own "done" for the next repetitions, with tiny times, through the
# runner's channel (the socket it finds among its descriptors), so that the judge would read
# answers before the work. Must get: crashed or fail, never pass.
import json
import os
import socket

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 0

    def forward(self, a, b):
        self.n += 1
        for fd in range(3, 64):
            try:
                s = socket.socket(fileno=os.dup(fd))
            except OSError:
                continue
            try:
                if s.type == socket.SOCK_SEQPACKET:
                    for k in range(self.n, self.n + 3):
                        s.send(json.dumps({"op": "ran", "id": k, "e_us": 0.5, "type": "Tensor",
                                           "exact_tensor": True, "shape": list(a.shape),
                                           "dtype": "float32", "copied": True, "aliases": [],
                                           "error": None}).encode())
            except OSError:
                pass
            finally:
                s.detach()
        return a + b
