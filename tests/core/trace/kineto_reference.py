#!/usr/bin/env python3
"""Independent reference for the numbers pinned in kinetoreader_test.cpp.

Loads each trace whole with Python's json (a different parser from Reach's) and recomputes:
GPU activities (cat kernel/gpu_memcpy/gpu_memset, ph X), their count and summed dur, the union of
their [ts, ts+dur] intervals (computed in exact decimal arithmetic from the JSON text), the span
(first ts to last ts+dur over all ph X events), and per-name calls/total/min/max plus the
launching cpu_op: kernel args["External id"] == cpu_op args["External id"] (the first such op in
the file); else kernel args.correlation == the correlation of a runtime call that launches GPU work
(cuda_runtime/cuda_driver, name with Launch/Memcpy/Memset; the first such call), then the cpu_op
its own External id names if that op encloses it on its (pid, tid), else the innermost cpu_op
enclosing it there (latest start; of equal starts the shorter), found here by brute force.
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
    ops, calls, threads = {}, {}, {}
    for e in ev:
        a = e.get("args", {})
        if e.get("cat") == "cpu_op" and "External id" in a:
            ops.setdefault(a["External id"], e)
        if e.get("cat") == "cpu_op" and e.get("ph") == "X" and "dur" in e:
            threads.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        if (e.get("cat") in ("cuda_runtime", "cuda_driver") and "ts" in e
                and any(w in e.get("name", "") for w in ("Launch", "Memcpy", "Memset"))
                and isinstance(a.get("correlation"), int)):
            calls.setdefault(a["correlation"], e)

    def encloses(op, call):
        return ((op.get("pid"), op.get("tid")) == (call.get("pid"), call.get("tid"))
                and "dur" in op and op["ts"] <= call["ts"] <= op["ts"] + op["dur"])

    def launcher(e):
        a = e.get("args", {})
        if a.get("External id") in ops:
            return ops[a["External id"]]["name"]
        call = calls.get(a.get("correlation"))
        if call is None:
            return None
        named = ops.get(call["args"].get("External id"))
        if named is not None and encloses(named, call):
            return named["name"]
        inner = [o for o in threads.get((call.get("pid"), call.get("tid")), []) if encloses(o, call)]
        if not inner:
            return None
        return max(inner, key=lambda o: (o["ts"], -o["dur"]))["name"]
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
        op = launcher(e)
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
