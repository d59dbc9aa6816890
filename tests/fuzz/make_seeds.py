#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made from the real files in datasets/ and tests/data/.

Real traces are far larger than a useful fuzz input, so each seed keeps the file's shape with few
rows: the first events of each bundled trace, an Nsight export with a handful of rows per table,
a few problems of each baseline file. Hand-made hostile seeds (tests/data/fuzz/TARGET/) are
copied as they are.
Usage: tests/fuzz/make_seeds.py OUT_DIR   (writes OUT_DIR/TARGET/*)
"""
import glob
import gzip
import json
import os
import shutil
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def out(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def load_trace(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def kineto():
    for path in sorted(glob.glob(os.path.join(ROOT, "datasets/profiles/**/*.json.gz"),
                                 recursive=True)):
        if os.path.getsize(path) > 2_000_000:
            continue  # the 5 MB trace adds nothing the small ones lack
        trace = load_trace(path)
        events = trace.get("traceEvents", [])
        gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        ops = [e for e in events if e.get("cat") == "cpu_op"][:20]
        other = [e for e in events if e.get("cat") not in ("kernel", "cpu_op")][:10]
        head = {k: v for k, v in trace.items() if k != "traceEvents"}
        for n in (8, 40):
            small = dict(head, traceEvents=other[:3] + ops[:n // 2] + gpu[:n])
            text = json.dumps(small, separators=(",", ":"))
            name = os.path.basename(path).replace(".json.gz", "") + f"_{n}.json"
            out("kineto_json", name, text)
            out("kineto_gzip", name + ".raw.gz", b"\x00" + gzip.compress(text.encode(), 1))
            out("kineto_gzip", name + ".compress", b"\x01" + text.encode())
    for path in glob.glob(os.path.join(ROOT, "tests/data/kineto/*.json")) + \
            glob.glob(os.path.join(ROOT, "tests/data/bad*/*.json")):
        out("kineto_json", os.path.basename(path), open(path, "rb").read())
    for path in glob.glob(os.path.join(ROOT, "tests/data/bad*/*.gz")):
        out("kineto_gzip", os.path.basename(path), b"\x00" + open(path, "rb").read())


def ranks():
    """Distributed runs' ranks (tests/data/distributed): collectives with and without the
    metadata PyTorch 2.x writes on them, small enough to mutate."""
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/distributed/*/rank-*.json.gz"))):
        trace = load_trace(path)
        events = trace.get("traceEvents", [])
        nccl = [e for e in events if e.get("name", "").startswith("nccl")]
        comms = [e for e in events if e.get("name") == "record_param_comms"][:4]
        gpu = [e for e in events if e.get("cat") == "kernel"][:12]
        head = {k: v for k, v in trace.items() if k != "traceEvents"}
        for n, extra in ((4, {}), (10, {"Process Group Name": "0", "Seq": 1,
                                        "In msg nelems": 64, "dtype": "Float"})):
            picked = [dict(e, args=dict(e.get("args", {}), **extra)) for e in nccl[:n]]
            text = json.dumps(dict(head, traceEvents=picked + comms + gpu), separators=(",", ":"))
            out("rank_scan", os.path.basename(path).replace(".json.gz", "") + f"_{n}.json", text)
    # A rank summary as the map writes it: the reader of summaries from elsewhere.
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/distributed/*.summary.json"))):
        out("rank_scan", os.path.basename(path), open(path, "rb").read())


def nsys():
    for path in [os.path.join(ROOT, "datasets/profiles/public/pipit_saxpy_nsys_a100.sqlite"),
                 os.path.join(ROOT, "tests/data/nsys/saxpy_schema3.sqlite")]:
        src = sqlite3.connect(path)
        dst_path = os.path.join(OUT, "tmp.sqlite")
        if os.path.exists(dst_path):
            os.remove(dst_path)
        dst = sqlite3.connect(dst_path)
        dst.execute("PRAGMA page_size = 512")
        keep = ("StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "TARGET_INFO_GPU",
                "EXPORT_META_DATA", "META_DATA_EXPORT")
        for name, sql in src.execute("SELECT name, sql FROM sqlite_master WHERE type='table'"):
            if name not in keep or not sql:
                continue
            dst.execute(sql)
            cols = [r[1] for r in src.execute(f"PRAGMA table_info({name})")]
            if name == "StringIds":
                used = set()
                for t in ("CUPTI_ACTIVITY_KIND_KERNEL",):
                    try:
                        for row in src.execute(f"SELECT demangledName, shortName FROM {t}"):
                            used.update(row)
                    except sqlite3.Error:
                        pass
                rows = [r for r in src.execute(f"SELECT * FROM {name}") if r[0] in used][:10]
            else:
                rows = list(src.execute(f"SELECT * FROM {name} LIMIT 6"))
            marks = ",".join("?" * len(cols))
            dst.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
        dst.commit()
        dst.execute("VACUUM")
        dst.close()
        out("nsys_sqlite", os.path.basename(path), open(dst_path, "rb").read())
        os.remove(dst_path)
    out("nsys_sqlite", "not_nsys.sqlite",
        open(os.path.join(ROOT, "tests/data/bad/not_nsys.sqlite"), "rb").read())


def records():
    out("records_jsonl", "small.jsonl", open(os.path.join(ROOT, "tests/data/records/small.jsonl"),
                                             "rb").read())
    out("kernelbench_eval", "eval_results.json",
        open(os.path.join(ROOT, "tests/data/kernelbench/eval_results.json"), "rb").read())
    for path in glob.glob(os.path.join(ROOT, "datasets/kernelbench/H100_*.json")):
        doc = json.load(open(path))
        small = {lvl: dict(list(probs.items())[:6]) for lvl, probs in doc.items()}
        out("kernelbench_baseline", os.path.basename(path), json.dumps(small, indent=1))
    raws = sorted(glob.glob(os.path.join(ROOT, "datasets/evaluations/h200/raw/*.json")))
    for path in raws[::4]:
        out("verify_output", os.path.basename(path), open(path, "rb").read())
    two = [json.load(open(p)) for p in raws[:2]]
    out("verify_output", "list.json", json.dumps(two))
    out("verify_output", "lines.json", "\n".join(json.dumps(d) for d in two) + "\n")
    rows = [("task", "model", "ok", "speedup", "time", "base", "level", "built"),
            ("23_Softmax", "m1", "yes", "1.3x", "2.0", "2.6", "1", "true"),
            ("\"a,b\"", "m2", "fail", "", "3.5", "2", "2", "1")]
    out("mapped_csv", "board.csv", "\r\n".join(",".join(r) for r in rows) + "\r\n")
    objs = [dict(zip(rows[0], r)) for r in rows[1:]]
    objs[0]["speedup"] = 1.3
    out("mapped_json", "board.json", json.dumps(objs))
    out("mapped_json", "wrapped.json", json.dumps({"results": objs}))


def others():
    out("ruleset", "default.json", open(os.path.join(ROOT, "resources/rules/default.json"),
                                        "rb").read())
    out("ruleset", "small.json", json.dumps({"name": "s", "version": 1, "rules": [
        {"pattern": "^nvjet|gemm", "category": "library_optimized", "family": "gemm"},
        {"pattern": "sm[[:digit:]]{2}_x", "category": "addressable", "note": "n"}]}))
    for path in sorted(glob.glob(os.path.join(ROOT, "resources/problems/*.json")))[::3]:
        out("problem", os.path.basename(path), open(path, "rb").read())
    out("other_json", "table3.json", open(os.path.join(ROOT, "datasets/paper/table3.json"),
                                          "rb").read())
    out("other_json", "kb_level1.json",
        open(os.path.join(ROOT, "datasets/kernelbench/kb_level1_h200_bf16.json"), "rb").read())
    manifest = glob.glob(os.path.join(ROOT, "resources/controls/*.json"))
    for path in manifest[:1]:
        out("other_json", "controls.json", open(path, "rb").read())


def integration():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/integrate/**/*.json"),
                                 recursive=True)):
        data = open(path, "rb").read()
        if b'"reach.integration"' in data:
            out("integration_document", os.path.basename(path), data)


def benchmark_folders():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/benchmark/*.json"))):
        data = open(path, "rb").read()
        if b'"profile_sha256"' in data and b'"problems"' in data:
            out("benchmark_folder", os.path.basename(path), data)


def serving_problems():
    """Each serving operator call of the vLLM layer trace, as the target takes it: one byte
    naming the operator's entry (core/base/servingoperators.cpp's order: the trace's calls name
    entries 0-2, 5, 7, 9), then its signature."""
    names = ["_C::rms_norm", "_C::fused_add_rms_norm", "_C::silu_and_mul", "_C::gelu_and_mul",
             "_C::gelu_tanh_and_mul", "_C::rotary_embedding", "_C::rotary_embedding",
             "_C::static_scaled_fp8_quant", "_C::static_scaled_fp8_quant",
             "_C_cache_ops::reshape_and_cache_flash"]
    trace = json.load(open(os.path.join(ROOT, "tests/data/kineto/serving_vllm.json")))
    seen = set()
    for e in trace["traceEvents"]:
        name, args = e.get("name"), e.get("args", {})
        if e.get("cat") != "cpu_op" or name not in names or name in seen:
            continue
        seen.add(name)
        sig = {"dims": args["Input Dims"], "types": args["Input type"],
               "concrete": args["Concrete Inputs"], "strides": args["Input Strides"]}
        out("serving_problem", name.replace(":", "_"),
            bytes([names.index(name)]) + json.dumps(sig).encode())


def handmade():
    for d in glob.glob(os.path.join(ROOT, "tests/data/fuzz/*")):
        for f in glob.glob(os.path.join(d, "*")):
            out(os.path.basename(d), os.path.basename(f), open(f, "rb").read())


if __name__ == "__main__":
    OUT = sys.argv[1]
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    kineto()
    nsys()
    records()
    others()
    integration()
    benchmark_folders()
    serving_problems()
    ranks()
    handmade()
