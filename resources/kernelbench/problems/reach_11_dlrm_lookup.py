# Reach KernelBench-format problem 11: DLRM-style sparse feature lookup.
# 8 tables nn.EmbeddingBag(200_000, 128, mode="sum"), each bag-summed over a fixed pooling of
# 20 lookups per sample, the 8 results concatenated: indices [8, 8192, 20] -> y [8192, 8 * 128].
# The fusion DLRM-Bench's largest win came from: 8 lookups + concat in one kernel.
# Bytes moved (fp32): 640 MiB of gathered rows (~440 MiB distinct) + 10 MiB indices
# + 32 MiB written; the tables are 8 x 98 MiB.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_tables: int, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.tables = nn.ModuleList(
            [nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum") for _ in range(num_tables)])

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        # indices [T, B, P]: table t, sample b, P lookups summed into one bag
        return torch.cat([table(indices[t]) for t, table in enumerate(self.tables)], dim=1)


num_tables = 8
num_embeddings = 200_000
embedding_dim = 128
batch_size = 8192
pooling = 20


def get_inputs():
    return [torch.randint(0, num_embeddings, (num_tables, batch_size, pooling), dtype=torch.int64)]


def get_init_inputs():
    return [num_tables, num_embeddings, embedding_dim]
