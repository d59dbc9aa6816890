#!/usr/bin/env python3
"""Host cost of reach-cli integrate's override, per call (docs/integration.md, "The host path"):
a small aten::clamp_min called plainly, then with a verified winner installed for another
signature (the call falls through to PyTorch's kernel) and for its own (the candidate runs),
beside the candidate called alone; each the mean of N calls after 200 warm-up calls, with the
ratio to the plain call. Measured for each host path in the same run: the Python overrides with
a Python candidate, and the native ones (C++) with the same Python candidate and with a
load_inline candidate whose function they call without Python (it calls at::clamp, so on either
device it costs what PyTorch's operator costs). CPU by default (the host's share is what the
override adds); --device cuda on a GPU machine, where every call is also one kernel launch.

    /usr/bin/python3 scripts/integrate_overhead.py [--device cpu|cuda] [--calls N]
"""
import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.join(ROOT, "resources", "python")
sys.path.insert(0, PYDIR)

PROBLEM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x0):
        return torch.ops.aten.clamp_min.default(x0, 0)


def get_inputs():
    return [torch.randn(64, 64)]


def get_init_inputs():
    return []
'''
CANDIDATE = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x0):
        return torch.clamp(x0, min=0)
'''
NATIVE = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="reach_overhead_clamp", cpp_sources=[
    "torch::Tensor clamp0(torch::Tensor x) { return at::clamp(x, 0); }"],
    functions=["clamp0"], verbose=False)


class ModelNew(nn.Module):
    def forward(self, x0):
        return ext.clamp0(x0)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args()
    import torch
    from reach_integrate import substitute
    dev = torch.device(a.device)
    x = torch.randn(64, 64, device=dev)  # the verified signature
    y = torch.randn(32, 64, device=dev)  # another

    def bench(fn):
        for _ in range(200):
            fn()
        if a.device == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(a.calls):
            fn()
        if a.device == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - t0) / a.calls * 1e6

    with tempfile.TemporaryDirectory() as d, torch.no_grad():
        plain = bench(lambda: torch.clamp_min(y, 0))
        alone = bench(lambda: torch.clamp(x, min=0))
        paths = {}
        for name, text in (("problem", PROBLEM), ("candidate", CANDIDATE), ("native", NATIVE)):
            paths[name] = os.path.join(d, name + ".py")
            with open(paths[name], "w") as f:
                f.write(text)
        out = {"device": a.device, "torch": torch.__version__, "calls": a.calls,
               "plain_us": round(plain, 2), "candidate_alone_us": round(alone, 2)}
        for host_path, candidate in (("python", "candidate"), ("native", "candidate"),
                                     ("native", "native")):
            plan = {"problems": [{"name": "clamp", "operator": "aten::clamp_min",
                                  "problem": paths["problem"], "candidate": paths[candidate],
                                  "problem_sha256": substitute.digest(paths["problem"]),
                                  "candidate_sha256": substitute.digest(paths[candidate])}]}
            sub = substitute.Substitution(plan, a.device, PYDIR, lambda: "profiled",
                                          host_path=host_path)
            sub.phase_changed("profiled")  # measured calls: only the first is checked
            fall = bench(lambda: torch.clamp_min(y, 0))
            subst = bench(lambda: torch.clamp_min(x, 0))
            w = sub.report()["problems"][0]
            key = host_path + ("_native_candidate" if candidate == "native" else "")
            out[key] = {"ran": sub.host_path, "candidate_native": w["native"],
                        "why": sub.host_path_why or w["native_why"],
                        "fall_through_us": round(fall, 2), "substituted_us": round(subst, 2),
                        "fall_through_over_plain": round(fall / plain, 2),
                        "substituted_over_candidate_alone": round(subst / alone, 2)}
            sub.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
