#!/usr/bin/env python3
"""Tunes one of our own Triton candidates on a GPU before it is verified: for each setting of
the candidate module's constants (BLOCK_M=8,16 NUM_WARPS=2,4 ...), its output against the
problem's Model and its time against the Model's, both with triton.testing.do_bench (L2 cleared
before each call, as reach-verify clears it), printed with the ratio. A tuning aid, not a
verdict: the verdict and the time that count are reach-verify's.

    python3 scripts/device/sweep_candidates.py PROBLEM.py CANDIDATE.py NAME=V1,V2 [NAME=V1,V2 ...]
"""
import importlib.util
import itertools
import sys

import torch
import triton.testing


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    problem = load(argv[0], "problem")
    cand = load(argv[1], "candidate")
    grid = []
    for a in argv[2:]:
        k, vs = a.split("=", 1)
        grid.append([(k, int(v)) for v in vs.split(",")])
    torch.manual_seed(0)
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]
    model = problem.Model(*problem.get_init_inputs()).cuda()
    with torch.no_grad():
        ref = model(*inputs)
        t_ref = triton.testing.do_bench(lambda: model(*inputs), warmup=50, rep=200)
    print(f"{argv[0]}: PyTorch {t_ref * 1e3:.2f} us")
    for setting in itertools.product(*grid) if grid else [()]:
        for k, v in setting:
            setattr(cand, k, v)
        m = cand.ModelNew(*problem.get_init_inputs()).cuda()
        with torch.no_grad():
            try:
                out = m(*inputs)
                err = ((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30)).item()
                t = triton.testing.do_bench(lambda: m(*inputs), warmup=50, rep=200)
            except Exception as e:  # a setting Triton cannot compile: say so, go on
                print(f"  {dict(setting)}: {type(e).__name__}: {str(e)[:200]}")
                continue
        print(f"  {dict(setting)}: {t * 1e3:.2f} us, speedup {t_ref / t:.3f}, rel err {err:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
