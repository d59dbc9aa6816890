#!/usr/bin/env python3
"""Builds eval_results.json, a KernelBench-format run-results file for Reach's importer tests.

The candidate runtimes are derived from KernelBench's REAL recorded eager baselines
(datasets/kernelbench/H100_Modal_baseline_time_torch.json): runtime = eager mean / target
speedup, rounded to 4 significant digits as KernelBench does. The outcomes (which sample
compiled, passed, and its target speedup) are chosen to exercise every importer path: several
samples per problem, a compile failure and a wrong kernel (runtime -1), a slower correct
kernel, a degenerate-reference problem (23_Softmax) and an excessive speedup (> 10x).
They are test inputs, not measurements of any model.

Run from the repository root:  python3 tests/data/kernelbench/make_eval_results.py
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BASELINE = os.path.join(ROOT, "datasets", "kernelbench", "H100_Modal_baseline_time_torch.json")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval_results.json")

# problem id -> list of (compiled, correct, target speedup over the eager mean or None)
PLAN = {
    1: [(True, True, 0.8)],
    5: [(False, False, None)],
    12: [(True, True, 12.5)],
    19: [(True, True, 1.25), (True, True, 0.9)],
    23: [(True, True, 2.0)],
    36: [(True, True, 1.5), (True, False, None)],
    40: [(True, False, None)],
    47: [(True, True, 1.05)],
}


def sig4(x):
    return float(f"{x:.4g}")


def main():
    level1 = json.load(open(BASELINE))["level1"]
    by_id = {int(name.split("_")[0]): entry for name, entry in level1.items()}
    results = {}
    for pid, samples in PLAN.items():
        entries = []
        for sample_id, (compiled, correct, speedup) in enumerate(samples):
            meta = {"hardware": "NVIDIA H100 80GB HBM3", "device": "cuda:0"}
            if not compiled:
                meta["compilation_error"] = "nvcc: error: identifier \"blockDim\" is undefined"
            elif not correct:
                meta["correctness_issue"] = "Output mismatch"
                meta["max_difference"] = ["0.562500"]
            else:
                meta["correctness_trials"] = "(5 / 5)"
            runtime = sig4(by_id[pid]["mean"] / speedup) if (correct and speedup) else -1.0
            stats = {}
            if runtime > 0:
                stats = {"mean": runtime, "std": sig4(runtime * 0.01), "min": sig4(runtime * 0.99),
                         "max": sig4(runtime * 1.05), "num_trials": 100,
                         "hardware": "NVIDIA H100 80GB HBM3", "device": "cuda:0"}
            entries.append({"sample_id": sample_id, "compiled": compiled, "correctness": correct,
                            "metadata": meta, "runtime": runtime, "runtime_stats": stats})
        results[str(pid)] = entries
    with open(OUT, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
