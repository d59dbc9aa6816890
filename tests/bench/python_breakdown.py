#!/usr/bin/env python3
"""The Python baseline of the reader benchmark: what a script does without Reach.

Reads a PyTorch profiler trace (gzip or plain), json.load()s it whole, and aggregates the GPU
activities (cat kernel / gpu_memcpy / gpu_memset, ph X) per name: calls and total duration, plus
the summed GPU time. Prints one JSON line with the totals so scripts/bench can check that both
sides read the same trace.
Usage: tests/bench/python_breakdown.py TRACE.json[.gz]
"""
import gzip
import json
import sys

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        trace = json.load(f)
    per_name = {}
    gpu_time = 0.0
    events = 0
    for e in trace["traceEvents"]:
        if e.get("ph") != "X" or e.get("cat") not in GPU_CATS:
            continue
        dur = float(e["dur"])
        agg = per_name.setdefault(e["name"], [0, 0.0])
        agg[0] += 1
        agg[1] += dur
        gpu_time += dur
        events += 1
    print(json.dumps({"gpu_time_us": round(gpu_time, 3), "events": events,
                      "names": len(per_name)}))


if __name__ == "__main__":
    main()
