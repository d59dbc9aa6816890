# Reach KernelBench-format problem 10: nn.EmbeddingBag(mode="sum") with offsets.
# Table [1_000_000, 128] (a parameter, N(0,1) init from the seeded RNG), 8192 bags of uneven
# length (20 + a multinomial share of the rest: ~24..60, mean 40); the total is fixed at
# 8192 * 40 = 327680 indices so every draw has the same input shapes. y [8192, 128].
# Bytes moved (fp32): 160 MiB of gathered rows (~137 MiB distinct) + 2.5 MiB indices
# + 4 MiB written; the table itself is 488 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.bag(indices, offsets)


num_embeddings = 1_000_000
embedding_dim = 128
num_bags = 8192
bag_floor = 20  # every bag has at least this many lookups
mean_bag = 40


def get_inputs():
    extra = torch.randint(0, num_bags, (num_bags * (mean_bag - bag_floor),))
    lengths = bag_floor + torch.bincount(extra, minlength=num_bags)
    offsets = torch.zeros(num_bags, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)[:-1]
    indices = torch.randint(0, num_embeddings, (num_bags * mean_bag,), dtype=torch.int64)
    return [indices, offsets]


def get_init_inputs():
    return [num_embeddings, embedding_dim]
