#!/usr/bin/env python3
"""Independent reference for the numbers pinned in kinetoreader_test.cpp.

Loads each trace whole with Python's json (a different parser from Reach's) and recomputes:
GPU activities (cat kernel/gpu_memcpy/gpu_memset, ph X), their count and summed dur, the union of
their [ts, ts+dur] intervals (computed in exact decimal arithmetic from the JSON text), the span
(first ts to last ts+dur over all ph X events), and per-name calls/total/min/max plus the
launching cpu_op (kernel args["External id"] == cpu_op args["External id"]).
Usage: tests/core/trace/kineto_reference.py TRACE.json.gz [NAME ...]
"""
import decimal
import gzip
import json
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    # Decimal keeps the timestamps exact, so busy time does not depend on float rounding.
    return json.loads(raw, parse_float=decimal.Decimal)


def main():
    d = load(sys.argv[1])
    ev = d["traceEvents"]
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in GPU_CATS]
    ops = {}
    for e in ev:
        if e.get("cat") == "cpu_op" and "External id" in e.get("args", {}):
            ops.setdefault(e["args"]["External id"], e["name"])
    xs = [e for e in ev if e.get("ph") == "X" and "ts" in e and "dur" in e]
    span = max(e["ts"] + e["dur"] for e in xs) - min(e["ts"] for e in xs)
    iv = sorted((e["ts"], e["ts"] + e["dur"]) for e in gpu)
    busy, cur = 0, None
    for b, en in iv:
        if cur is None or b > cur[1]:
            if cur:
                busy += cur[1] - cur[0]
            cur = [b, en]
        else:
            cur[1] = max(cur[1], en)
    if cur:
        busy += cur[1] - cur[0]
    per = {}
    for e in gpu:
        p = per.setdefault(e["name"], {"calls": 0, "total": 0, "min": None, "max": None, "ops": {}})
        p["calls"] += 1
        p["total"] += e["dur"]
        p["min"] = e["dur"] if p["min"] is None else min(p["min"], e["dur"])
        p["max"] = e["dur"] if p["max"] is None else max(p["max"], e["dur"])
        op = ops.get(e.get("args", {}).get("External id"))
        if op is not None:
            p["ops"][op] = p["ops"].get(op, 0) + e["dur"]
    linked = sum(sum(p["ops"].values()) for p in per.values())
    print(f"events {len(gpu)} names {len(per)} gpu_us {sum(e['dur'] for e in gpu)} "
          f"busy_us {busy} span_us {span} linked_us {linked} "
          f"device {[p.get('name') for p in d.get('deviceProperties', [])][:1]}")
    top = sorted(per.items(), key=lambda kv: -kv[1]["total"])
    wanted = sys.argv[2:] or [k for k, _ in top[:3]]
    for name in wanted:
        p = per[name]
        dom = max(p["ops"].items(), key=lambda kv: kv[1])[0] if p["ops"] else ""
        print(f"  {name[:100]!r}: calls {p['calls']} total {p['total']} min {p['min']} "
              f"max {p['max']} op {dom!r}")


if __name__ == "__main__":
    main()
