#!/usr/bin/env python3
"""Timing-quality check for reach-verify (issue 4, acceptance).

1. Runs reach-verify N times (default 3) on one positive control and reads the median of each
   run: their spread (max - min) / median must be < 2%.
2. Loads the very shared object reach-verify compiled (compile.shared_object) with ctypes and
   times it with triton.testing.do_bench(..., return_mode="median") on tensors of the same
   shapes: it must agree with Reach's median within 3%.

Needs a GPU, torch and triton. Prints a JSON summary and exits 1 when a criterion fails.
"""
import argparse
import ctypes
import json
import statistics
import subprocess
import sys
import time

DTYPES = {"f32": 0, "bf16": 1}


class ReachTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 8)]


def run_verifier(args, seed):
    cmd = [args.verifier, "--problem", args.problem, "--candidate", args.candidate,
           "--reps", str(args.reps), "--seed", str(seed)]
    if args.resources:
        cmd += ["--resources", args.resources]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    doc = json.loads(p.stdout)
    return doc, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verifier", required=True)
    ap.add_argument("--problem", required=True)
    ap.add_argument("--candidate", required=True)
    ap.add_argument("--resources", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    import torch
    import triton

    runs = []
    for i in range(args.runs):
        doc, wall = run_verifier(args, seed=1)
        runs.append({"verdict": doc["verdict"], "median_us": doc["timing"]["median_us"],
                     "p10_us": doc["timing"]["p10_us"], "p90_us": doc["timing"]["p90_us"],
                     "sm_clock_before_mhz": doc["timing"]["sm_clock_before_mhz"],
                     "sm_clock_after_mhz": doc["timing"]["sm_clock_after_mhz"],
                     "compile": doc["compile"]["status"], "wall_s": wall})
        so = doc["compile"]["shared_object"]
        problem = doc["problem"]
    medians = [r["median_us"] for r in runs]
    reach_median = statistics.median(medians)
    spread = (max(medians) - min(medians)) / reach_median

    # The same shared object, the same shapes, timed by Triton.
    lib = ctypes.CDLL(so)
    lib.reach_run.restype = ctypes.c_int
    lib.reach_run.argtypes = [ctypes.POINTER(ReachTensor), ctypes.c_int,
                              ctypes.POINTER(ReachTensor), ctypes.c_int, ctypes.c_void_p]
    assert problem["op"] == "softmax", "this script drives a softmax-like x -> y problem"
    shape = problem["shapes"]["x"]
    tdt = torch.bfloat16 if problem["dtype"] == "bf16" else torch.float32
    x = torch.randn(*shape, device="cuda", dtype=tdt)
    y = torch.empty_like(x)

    def tensor(t):
        rt = ReachTensor()
        rt.data = t.data_ptr()
        rt.dtype = DTYPES[problem["dtype"]]
        rt.ndim = t.dim()
        for i, d in enumerate(t.shape):
            rt.shape[i] = d
        return rt

    ins = (ReachTensor * 1)(tensor(x))
    outs = (ReachTensor * 1)(tensor(y))
    stream = torch.cuda.current_stream().cuda_stream

    def fn():
        lib.reach_run(ins, 1, outs, 1, ctypes.c_void_p(stream))

    fn()
    torch.cuda.synchronize()
    ref = torch.softmax(x.float(), dim=-1)
    max_err = (y.float() - ref).abs().max().item()
    triton_ms = [triton.testing.do_bench(fn, return_mode="median") for _ in range(3)]
    triton_us = statistics.median(triton_ms) * 1000.0
    agree = abs(triton_us - reach_median) / reach_median

    summary = {
        "problem": problem["id"], "candidate": args.candidate, "shared_object": so,
        "reach_runs": runs, "reach_medians_us": medians, "reach_median_us": reach_median,
        "reach_spread": spread, "triton_do_bench_median_us_each": [m * 1000 for m in triton_ms],
        "triton_median_us": triton_us, "relative_difference": agree,
        "ctypes_run_max_abs_error_vs_torch": max_err,
        "torch": torch.__version__, "triton": triton.__version__,
        "device": torch.cuda.get_device_name(0),
        "pass_agree_3pct": agree < 0.03, "pass_spread_2pct": spread < 0.02,
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if (agree < 0.03 and spread < 0.02) else 1


if __name__ == "__main__":
    sys.exit(main())
