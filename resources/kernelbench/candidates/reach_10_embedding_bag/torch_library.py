# Reach candidate for reach_10_embedding_bag: honest library fallback, F.embedding_bag on the
# module's own table (the op the reference uses). Correct by construction; a verifier must pass it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(indices, self.bag.weight, offsets, mode="sum")
