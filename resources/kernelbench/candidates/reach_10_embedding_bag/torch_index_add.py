# Reach candidate for reach_10_embedding_bag: plain PyTorch without EmbeddingBag: gather the
# rows (index_select), then scatter-add them into their bags (index_add_) in fp32 and cast back.
# Correct; materializes all ~327K gathered rows (160 MiB in fp32), so slower.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        w = self.bag.weight
        n_bags = offsets.numel()
        lengths = torch.diff(offsets, append=offsets.new_tensor([indices.numel()]))
        bag_of = torch.repeat_interleave(torch.arange(n_bags, device=offsets.device), lengths)
        rows = w.index_select(0, indices).float()
        out = torch.zeros((n_bags, w.shape[1]), dtype=torch.float32, device=w.device)
        out.index_add_(0, bag_of, rows)
        return out.to(w.dtype)
