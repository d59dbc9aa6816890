# A problem in the form reach-cli extract writes (the operator called with every recorded
# argument, explicitly), small enough for a CPU test: aten::_embedding_bag over a [1000, 16]
# float32 table, 256 indices in 32 bags of 8, mode sum. nn.EmbeddingBag makes the same call
# with its trailing defaults: integrate must see one signature.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, weight, indices, offsets):
        return torch.ops.aten._embedding_bag.default(weight, indices, offsets, False, 0, False,
                                                     None, False, -1)[0]


def get_inputs():
    return [torch.randn(1000, 16), torch.randint(0, 1000, (256,)),
            torch.arange(32, dtype=torch.int64) * 8]


def get_init_inputs():
    return []
