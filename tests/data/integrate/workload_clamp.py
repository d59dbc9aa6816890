# A small workload for reach-cli integrate's CPU test: each step clamps a [4096, 128] bf16
# activation (the signature of DLRM's extracted aten::clamp_min problem 008), a [4096, 64] one and
# a float32 copy of the first (two signatures it was not verified at), then marks the step.
# --out DIR: each run writes what it computed to DIR/<pid>.json (the runs must agree). --nan puts
# a NaN in the activation, which clamp_min keeps and a torch.where(x > 0, x, 0) does not.
# --steps bounds the loop, as a real workload's data would; --device puts the activations on a GPU
# (the device run of integrate, scripts/device/session_accept.sh).
import argparse
import json
import os

import torch

from reach_integrate import reach_step

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=1000)
ap.add_argument("--out")
ap.add_argument("--nan", action="store_true")
ap.add_argument("--device", default="cpu")
# --small N: N more clamp_min calls a step on a [16, 16] tensor, each a fall-through under
# integrate: a host-bound step, where the overrides' own cost shows (docs/integration.md).
ap.add_argument("--small", type=int, default=0)
a = ap.parse_args()
torch.manual_seed(0)
x = torch.randn(4096, 128).to(torch.bfloat16)
if a.nan:
    x[7, 3] = float("nan")
y = torch.randn(4096, 64).to(torch.bfloat16)
s = torch.randn(16, 16)
x, y, s = x.to(a.device), y.to(a.device), s.to(a.device)
results = []
for step in range(a.steps):
    with torch.no_grad():
        h = torch.clamp_min(x, 0)
        g = torch.clamp_min(y, 0)
        f = torch.clamp_min(x.float(), 0)
        for _ in range(a.small):
            torch.clamp_min(s, 0)
    results.append([h.float().sum().item(), g.float().sum().item(), f.sum().item()])
    if a.out:
        with open(os.path.join(a.out, "%d.json" % os.getpid()), "w") as fh:
            json.dump(results, fh)
    reach_step()
