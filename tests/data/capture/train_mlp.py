"""A small training workload for reach-cli profile's tests (CPU PyTorch): an MLP on random data,
SGD with one update per parameter (foreach=False). MARK=reach_step marks its steps with
reach_step(), MARK=prof with its own torch.profiler's prof.step(), MARK=none not at all (its
optimizer's steps are the steps); MARK=foreach uses the foreach optimizer (one call over lists of
tensors) and does not mark. STEPS sets how many iterations it runs (default 12)."""
import os

import torch
import torch.nn as nn

mark = os.environ.get("MARK", "none")
iterations = int(os.environ.get("STEPS", "12"))
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.LayerNorm(512), nn.Linear(512, 64))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=(mark == "foreach"))
x, y = torch.randn(64, 256), torch.randn(64, 64)


def step():
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


if mark == "reach_step":
    from reach_integrate.steps import reach_step

    for _ in range(iterations):
        step()
        reach_step()
elif mark == "prof":
    with torch.profiler.profile() as prof:
        for _ in range(iterations):
            step()
            prof.step()
else:
    for _ in range(iterations):
        step()
