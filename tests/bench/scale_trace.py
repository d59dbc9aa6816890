#!/usr/bin/env python3
"""Scales a real PyTorch profiler trace up for the reader's throughput benchmark.

Repeats the trace's events (its profiled steps) back to back: copy k has every timestamp shifted
by k times the trace's span and every id that links events (External id, correlation, flow id,
Record function id, Ev Idx) offset by k times the largest id, so the scaled trace has the same
structure (operator links, flows, streams) as a longer profile of the same program would.
Writes plain JSON (or gzip when OUT ends in .gz) until it reaches TARGET_MB.
Usage: tests/bench/scale_trace.py SRC.json[.gz] OUT.json [TARGET_MB=1000]
"""
import gzip
import json
import sys

LINK_ARGS = ("External id", "correlation", "Record function id", "Ev Idx")


def shifted(e, shift, id_shift):
    """A copy of event e, its timestamp `shift` us later and every linking id `id_shift` on."""
    c = dict(e)
    if "ts" in c:
        c["ts"] = round(c["ts"] + shift, 3)
    if isinstance(c.get("id"), int):
        c["id"] += id_shift
    a = c.get("args")
    if a:
        a = dict(a)
        for k in LINK_ARGS:
            if isinstance(a.get(k), int):
                a[k] += id_shift
        c["args"] = a
    return c


def load(src):
    """The trace at src (plain or gzip): its top-level keys but the events, its metadata events
    (ph M, kept once), its timed events (repeated), the span a copy is shifted by, and the id
    offset that keeps the copies' links apart."""
    with open(src, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    trace = json.loads(raw)
    events = trace["traceEvents"]
    timed = [e for e in events if "ts" in e]
    t0 = min(e["ts"] for e in timed)
    t1 = max(e["ts"] + e.get("dur", 0) for e in timed)
    max_id = 0
    for e in events:
        if isinstance(e.get("id"), int):
            max_id = max(max_id, e["id"])
        for k in LINK_ARGS:
            v = (e.get("args") or {}).get(k)
            if isinstance(v, int):
                max_id = max(max_id, v)
    head = {k: v for k, v in trace.items() if k != "traceEvents"}
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    return head, meta, body, (t1 - t0) * 1.01, max_id + 1


def main():
    src, out = sys.argv[1], sys.argv[2]
    target = int(float(sys.argv[3]) * 1e6) if len(sys.argv) > 3 else 1000 * 1000 * 1000
    head, meta, body, span, max_id = load(src)
    opener = gzip.open if out.endswith(".gz") else open
    written = 0
    copies = 0
    with opener(out, "wt", encoding="utf-8") as f:
        prefix = json.dumps(head)[:-1] + ', "traceEvents": [\n'
        f.write(prefix)
        written += len(prefix)
        first = True
        for e in meta:
            s = ("" if first else ",\n") + json.dumps(e)
            first = False
            f.write(s)
            written += len(s)
        while written < target:
            shift = span * copies
            id_shift = max_id * copies
            parts = [json.dumps(shifted(e, shift, id_shift)) for e in body]
            s = ("" if first else ",\n") + ",\n".join(parts)
            first = False
            f.write(s)
            written += len(s)
            copies += 1
        f.write("\n]}\n")
    print(json.dumps({"out": out, "copies": copies, "bytes": written + 4}))


if __name__ == "__main__":
    main()
