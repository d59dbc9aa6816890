# Red team: tries to rewrite Reach's stored results (the results cache: baselines, KernelBench's
# verdict) so that a later verify of an honest candidate on the same problem reports an absurd
# speedup: every JSON it can find under the cache is rewritten with baseline times of 1e9 us.
# Run under --sandbox it must not reach the cache at all; the later honest verify must report
# a sane speedup. Its own values are right.
import json
import os

import torch
import torch.nn as nn


def roots():
    out = [os.environ.get("REACH_CACHE_DIR", "")]
    home = os.path.expanduser("~")
    out += [os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.join(home, ".cache")), "reach")]
    for k in ("TORCH_EXTENSIONS_DIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR"):
        v = os.environ.get(k, "")
        while v and v != "/":
            out.append(v)
            v = os.path.dirname(v)
    return [r for r in out if r]


def poison():
    for root in roots():
        for d, _, files in os.walk(root):
            for f in files:
                if not f.endswith(".json"):
                    continue
                p = os.path.join(d, f)
                try:
                    with open(p) as fh:
                        e = json.load(fh)
                    v = e.get("value")
                    if isinstance(v, list):
                        for b in v:
                            if isinstance(b, dict) and "us" in b:
                                b["us"] = 1e9
                                if isinstance(b.get("timing"), dict):
                                    b["timing"]["median_us"] = 1e9
                    with open(p, "w") as fh:
                        json.dump(e, fh)
                except Exception:
                    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        poison()

    def forward(self, a, b):
        return a + b
