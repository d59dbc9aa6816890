# An honest candidate for vLLM's rotary_embedding (NeoX style, rot_dim = head_size): query and key
# rotated at their positions, flattened and concatenated as the problem returns them.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, positions, query, key, cos_sin_cache):
        rows = cos_sin_cache[positions].float()
        half = rows.shape[-1] // 2
        cos, sin = rows[:, None, :half], rows[:, None, half:]

        def rotate(x):
            t = x.reshape(x.shape[0], -1, 2 * half).float()
            a, b = t[..., :half], t[..., half:]
            return torch.cat([a * cos - b * sin, b * cos + a * sin], -1).to(x.dtype).reshape(-1)

        return torch.cat([rotate(query), rotate(key)])
