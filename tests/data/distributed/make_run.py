#!/usr/bin/env python3
"""A distributed run made from one real rank's trace, with a known answer (issue "Distributed
workloads", docs/distributed.md): N copies of BASE, each rank's clock shifted by a known offset,
and known late arrivals at chosen collectives, as a test of `reach-cli breakdown --ranks` needs.

    python3 make_run.py BASE OUT --ranks N [--offsets 0,1500,-700,...]
                        [--late RANK:INDEX:US ...] [--drop RANK:INDEX ...] [--annotate]

A collective is an NCCL kernel (name ncclKernel_*/ncclDevKernel_*), INDEX its place in begin
order. --late R:I:U: rank R arrives U us late at collective I: its kernel starts U later, and
every other rank's copy of it lasts U longer (they wait), so all leave U later, as a straggler
makes them. --drop R:I: rank R's trace loses collective I (a sampled or cut trace).
--annotate: each collective kernel gets the metadata PyTorch 2.x writes on it (process group
"0", its sequence number I + 1, 1024 x (I + 1) float elements). Writes
OUT/rank-K.json.gz (distributedInfo rank K, world_size N) and OUT.truth.json beside it."""
import argparse
import copy
import gzip
import json
import os


def collectives(events):
    ks = [e for e in events if e.get("cat") == "kernel" and
          e.get("name", "").startswith(("ncclKernel_", "ncclDevKernel_"))]
    return sorted(ks, key=lambda e: (e["ts"], e["ts"] + e["dur"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--offsets", default="")
    ap.add_argument("--late", action="append", default=[])
    ap.add_argument("--drop", action="append", default=[])
    ap.add_argument("--annotate", action="store_true")
    a = ap.parse_args()
    opener = gzip.open if a.base.endswith(".gz") else open
    with opener(a.base, "rt", encoding="utf-8") as f:
        base = json.load(f)
    offsets = [float(x) for x in a.offsets.split(",")] if a.offsets else [0.0] * a.ranks
    offsets += [0.0] * (a.ranks - len(offsets))
    late = [tuple(float(x) if i == 2 else int(x) for i, x in enumerate(s.split(":")))
            for s in a.late]
    drop = {tuple(int(x) for x in s.split(":")) for s in a.drop}
    os.makedirs(a.out, exist_ok=True)
    for rank in range(a.ranks):
        doc = copy.deepcopy(base)
        info = dict(doc.get("distributedInfo") or {})
        info.update({"rank": rank, "world_size": a.ranks})
        doc["distributedInfo"] = info
        events = doc["traceEvents"]
        cs = collectives(events)
        if a.annotate:
            for i, c in enumerate(cs):
                c.setdefault("args", {}).update({
                    "Process Group Name": "0", "Collective name": "all_to_all",
                    "Seq": i + 1, "In msg nelems": 1024 * (i + 1), "dtype": "Float"})
        for r, i, us in late:
            if rank == r:
                cs[i]["ts"] += us
            else:
                cs[i]["dur"] += us
        gone = {id(cs[i]) for r, i in drop if r == rank}
        doc["traceEvents"] = [e for e in events if id(e) not in gone]
        for e in doc["traceEvents"]:
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] += offsets[rank]
        with gzip.open(os.path.join(a.out, "rank-%d.json.gz" % rank), "wt",
                       encoding="utf-8") as f:
            json.dump(doc, f)
    truth = {"base": os.path.basename(a.base), "ranks": a.ranks, "offsets_us": offsets,
             "late": [{"rank": r, "collective": i, "us": us} for r, i, us in late],
             "drop": [{"rank": r, "collective": i} for r, i in sorted(drop)]}
    with open(a.out.rstrip("/") + ".truth.json", "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
