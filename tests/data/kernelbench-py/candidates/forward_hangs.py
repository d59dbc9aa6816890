import time

import torch.nn as nn


class ModelNew(nn.Module):
    """A candidate whose forward never returns: the verifier's timeout must end it."""

    def forward(self, x):
        while True:
            time.sleep(1)
