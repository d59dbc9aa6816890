#!/usr/bin/env python3
"""The distributed reader's benchmark (issue "Distributed workloads": 100 GB of rank traces at
>= 5 GB/s in <= 2 GB, against one rank at a time in the same run).

    tests/bench/rank_run.py BASE OUT --ranks N --rank-mb S --cli REACH_CLI
                            [--baseline-ranks K] [--workers P] [--memory MIB]

Makes OUT/rank-R.json.gz for R < N (once; kept when OUT/.made says the same parameters): each
rank is BASE's timed events repeated back to back until S MB of JSON (every copy's timestamps
shifted by the trace's span and its link ids offset, as tests/bench/scale_trace.py does), with a
distributedInfo naming its rank. The events are written once as gzip members by P processes and
every rank is its own small first member plus a copy of those (gzip -c a b is one stream), so a
100 GB run is made in a minute on 16 cores and ~10 GB of disk.

Then times, one after the other, `REACH_CLI breakdown OUT --ranks --json` as it reads by default
(ranks in parallel within --memory) and with `--jobs 1` (one rank at a time) over the first K
ranks (default all), each a fresh process: wall seconds, GB/s of JSON, and peak resident memory
(wait4's ru_maxrss), then their ratio. Both documents must agree on what they share.
"""
import argparse
import gzip
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_trace  # noqa: E402  (one way to repeat a trace's events)
from scale_trace import shifted  # noqa: E402


def load(base):
    head, meta, body, span, max_id = scale_trace.load(base)
    head.pop("distributedInfo", None)  # each rank gets its own
    return head, meta, [e for e in body if "ts" in e], span, max_id


def copy_text(body, shift, id_shift):
    return ",\n" + ",\n".join(json.dumps(shifted(e, shift, id_shift)) for e in body)


def make_part(job):
    base, first, count, path = job
    _, _, body, span, max_id = load(base)
    written = 0
    with gzip.open(path, "wb", compresslevel=1) as f:
        for k in range(first, first + count):
            s = copy_text(body, span * k, max_id * k).encode()
            f.write(s)
            written += len(s)
    return written


def make(a):
    stamp = {"base": os.path.abspath(a.base), "ranks": a.ranks, "rank_mb": a.rank_mb}
    marker = os.path.join(a.out, ".made")  # not *.json: the folder is the run
    if os.path.exists(marker) and json.load(open(marker)).get("made") == stamp:
        return json.load(open(marker))
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(os.path.join(a.out, ".parts"))
    head, meta, body, span, max_id = load(a.base)
    per_copy = len(copy_text(body, 0, 0))
    copies = max(1, int(a.rank_mb * 1e6 / per_copy))
    workers = max(1, min(a.workers, copies))
    share = [copies // workers + (i < copies % workers) for i in range(workers)]
    jobs, first = [], 0
    for i, n in enumerate(share):
        jobs.append((a.base, first, n, os.path.join(a.out, ".parts", "%03d.gz" % i)))
        first += n
    t0 = time.time()
    with multiprocessing.Pool(workers) as pool:
        json_bytes = sum(pool.map(make_part, jobs))
    parts = [j[3] for j in jobs]
    tail = gzip.compress(b"\n]}\n")
    for r in range(a.ranks):
        doc = dict(head)
        doc["distributedInfo"] = {"backend": "nccl", "rank": r, "world_size": a.ranks}
        marker_event = {"ph": "M", "name": "process_name", "pid": 0, "tid": 0,
                        "args": {"name": "rank %d" % r}}
        first_text = (json.dumps(doc)[:-1] + ', "traceEvents": [' +
                      ",\n".join(json.dumps(e) for e in [marker_event] + meta)).encode()
        with open(os.path.join(a.out, "rank-%d.json.gz" % r), "wb") as f:
            f.write(gzip.compress(first_text, compresslevel=1))
            for p in parts:
                with open(p, "rb") as src:
                    shutil.copyfileobj(src, f, 16 << 20)
            f.write(tail)
        json_bytes_rank = json_bytes + len(first_text) + 4
    shutil.rmtree(os.path.join(a.out, ".parts"))
    info = {"made": stamp, "copies": copies, "json_bytes_per_rank": json_bytes_rank,
            "json_bytes": json_bytes_rank * a.ranks,
            "gzip_bytes": sum(os.path.getsize(os.path.join(a.out, "rank-%d.json.gz" % r))
                              for r in range(a.ranks)),
            "seconds": round(time.time() - t0, 1)}
    json.dump(info, open(marker, "w"))
    return info


def timed(argv):
    """Runs argv, returns (wall seconds, peak RSS bytes, stdout): wait4 gives this child's own
    rusage (its outputs go to files, so nothing waits on a full pipe)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            sys.exit("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                          err.read().decode()[-500:]))
        return wall, usage.ru_maxrss * 1024, out.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--rank-mb", type=float, required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--baseline-ranks", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--memory", type=int, default=0, help="--memory MIB for the parallel read")
    a = ap.parse_args()
    info = make(a)
    print("run: %d ranks, %.2f GB of JSON (%.2f GB gzip), made in %s s" % (
        a.ranks, info["json_bytes"] / 1e9, info["gzip_bytes"] / 1e9, info["seconds"]))
    files = [os.path.join(a.out, "rank-%d.json.gz" % r) for r in range(a.ranks)]
    par = [a.cli, "breakdown", *files, "--ranks", "--json"]
    if a.memory:
        par += ["--memory", str(a.memory)]
    wall, rss, doc = timed(par)
    gb = info["json_bytes"] / 1e9
    print("parallel (default):  %8.2f s  %6.2f GB/s  peak %7.1f MiB  (%d ranks)" % (
        wall, gb / wall, rss / 2**20, a.ranks))
    k = a.baseline_ranks or a.ranks
    gb1 = info["json_bytes_per_rank"] * k / 1e9
    wall1, rss1, doc1 = timed([a.cli, "breakdown", *files[:k], "--ranks", "--jobs", "1", "--json"])
    print("one rank at a time:  %8.2f s  %6.2f GB/s  peak %7.1f MiB  (%d ranks)" % (
        wall1, gb1 / wall1, rss1 / 2**20, k))
    print("throughput ratio (parallel / one at a time): %.2f" % ((gb / wall) / (gb1 / wall1)))
    d, d1 = json.loads(doc), json.loads(doc1)
    same = [r.get("gpu_time_us") for r in d["ranks"][:k]] == [r.get("gpu_time_us") for r in d1["ranks"]]
    print("per-rank GPU time the same in both:", same)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
