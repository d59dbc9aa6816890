#!/usr/bin/env python3
"""The GPU acceptance run of KernelBench-format verification (issue "Verify the kernels people
actually have"), in one call on the H200 machine. Writes every reach-verify document and a table.

Phases (--phases, in this order):
  sweep    every candidate of resources/kernelbench/controls.json (one precision each; cheats
           over 5 seeds), correctness only (--no-timing), N jobs at a time: each job is its own
           reach-verify; no timing happens here, so jobs may share the GPU.
  timed    one job at a time, with timing and every baseline: KernelBench's suite (its three
           adversarial kernels against 1_Square_matrix_multiplication_, its two add examples),
           the cheats whose catch needs timing (result reuse, work on a private stream) and one
           candidate per problem, until --timed-budget seconds have passed.
  timing   for one Triton and one load_inline candidate: Reach's median from three runs
           against triton.testing.do_bench(..., return_mode="median") on the same model, inputs
           and precision, in the same call.
  reverify the 1 GiB problem re-verified with warm caches, end to end (wall seconds).

  python3 scripts/device/kb_acceptance.py --verifier .devrun/reach-verify --suite .kbsuite \
      --out "$OUT/kb" --phases sweep,timed,timing,reverify
"""
import argparse
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KB = ROOT / "resources" / "kernelbench"
sys.path.insert(0, str(ROOT / "resources" / "python"))
from reach_kbserver import OwnedServer  # noqa: E402  (the owner's side: imports no PyTorch)

# The warm worker server of the reverify phase, while it runs: each reach-verify then gets a
# connection of its own, inherited, as the GUI and a batch give it (docs/kernelbench.md).
_SERVER = None


def run_verify(args, problem, candidate, precision, extra, tag, timeout=1500):
    cmd = [args.verifier, "--problem", str(problem), "--candidate", str(candidate),
           "--precision", precision, "--worker-timeout", str(timeout // 2)] + extra
    env, fds, conn = None, (), None
    if _SERVER is not None:
        conn = _SERVER.connect()
        fds = (conn.fileno(),)
        env = dict(os.environ, REACH_KB_SERVER_FD=str(conn.fileno()))
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           pass_fds=fds)
    finally:
        if conn is not None:
            conn.close()
    wall = time.time() - t0
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        doc = {"verdict": "no_document", "reasons": [p.stderr.strip()[-400:]], "exit": p.returncode}
    doc["_wall_s"] = wall
    doc["_cmd"] = cmd
    out = Path(args.out) / "docs"
    out.mkdir(parents=True, exist_ok=True)
    (out / (tag + ".json")).write_text(json.dumps(doc, indent=1))
    return doc


def failed_names(doc):
    names = {c["name"] for c in doc.get("checks", []) if not c.get("passed", True)}
    return names | set(doc.get("flags", []))


def judge(doc, control):
    """As designed? expect pass/fail; trips: at least one among failed checks or flags."""
    verdict = doc.get("verdict")
    ok = verdict == control["expect"]
    trips = control.get("trips") or []
    if ok and trips and not (failed_names(doc) & set(trips)):
        ok = False
    return ok


def kb_verdict(doc):
    kb = doc.get("kernelbench") or {}
    if kb.get("compiled") is False:
        return "not compiled"
    return ("correct " if kb.get("correctness") else "incorrect ") + str(kb.get("correctness_trials"))


def controls(args):
    doc = json.loads((KB / "controls.json").read_text())
    out = []
    for c in doc["controls"]:
        precisions = c["precisions"]
        precision = "bf16" if "bf16" in precisions else precisions[0]
        out.append(dict(c, precision=precision))
    return out


def needs_timing(c):
    return bool(set(c.get("trips") or []) & {"result_reuse", "timing"})


def tag_of(c, suffix=""):
    return (Path(c["candidate"]).parent.name + "__" + Path(c["candidate"]).stem + "__" +
            c["precision"] + suffix)


def phase_sweep(args, table):
    jobs = []
    done = set()
    if args.sweep_done and Path(args.sweep_done).exists():
        done = set(Path(args.sweep_done).read_text().split())
    for c in controls(args):
        if tag_of(c, "__sweep") in done:
            continue
        seeds = "5" if c["candidate"].split("/")[-1].startswith("cheat_") else "1"
        extra = ["--no-timing", "--no-compile-baseline", "--seed-count", seeds]
        jobs.append((c, extra))
    t0 = time.time()
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(run_verify, args, KB / c["problem"], KB / c["candidate"],
                            c["precision"], extra, tag_of(c, "__sweep")): c for c, extra in jobs}
        for f in cf.as_completed(futs):
            c = futs[f]
            try:
                doc = f.result()
            except Exception as e:  # a hung job past its timeout
                doc = {"verdict": "driver_error", "reasons": [str(e)]}
            row = {"phase": "sweep", "candidate": c["candidate"], "precision": c["precision"],
                   "expect": c["expect"], "verdict": doc.get("verdict"),
                   "as_designed": judge(doc, c) if not needs_timing(c) else None,
                   "kernelbench": kb_verdict(doc), "fooled": doc.get("fooled"),
                   "reason": (doc.get("reasons") or [""])[0][:140],
                   "wall_s": round(doc.get("_wall_s", 0), 1)}
            table.append(row)
            print(f"sweep {row['verdict']:>13} {'ok ' if row['as_designed'] else ('-- ' if row['as_designed'] is None else 'BAD')} "
                  f"{c['candidate']} {c['precision']} kb={row['kernelbench']} {row['wall_s']}s", flush=True)
    print(f"sweep: {len(jobs)} jobs in {time.time() - t0:.0f} s", flush=True)


def suite_jobs(args):
    s = Path(args.suite)
    mm = s / "level1" / "1_Square_matrix_multiplication_.py"
    add = s / "candidates" / "example_model_ex_add.py"
    jobs = []
    for name, trips in (("adversarial_result_reuse_kernel", ["written_fraction", "rel_frobenius"]),
                        ("adversarial_zero_out_kernel", ["inputs_unchanged"]),
                        ("adversarial_non_default_stream_kernel", ["timing"])):
        expect = "pass" if "stream" in name else "fail"
        jobs.append(({"problem": str(mm), "candidate": str(s / "candidates" / (name + ".py")),
                      "precision": "fp32", "expect": expect, "trips": trips}, "suite"))
    for name in ("example_model_new_ex_add_cuda", "example_model_new_ex_add_triton"):
        jobs.append(({"problem": str(add), "candidate": str(s / "candidates" / (name + ".py")),
                      "precision": "fp32", "expect": "pass", "trips": []}, "suite"))
    return jobs


def phase_warm(args, table):
    """Builds (load_inline, Triton) of the candidates the timed phases use, correctness only,
    several at a time: their compile time stays out of the timed phases."""
    jobs = [c for c, _ in suite_jobs(args)] if args.suite else []
    jobs += [c for c in controls(args) if needs_timing(c)]
    jobs.append({"problem": "problems/reach_01_softmax.py",
                 "candidate": "candidates/reach_01_softmax/cuda_rowblock.py", "precision": "bf16",
                 "expect": "pass", "trips": []})
    def one(c):
        p = Path(c["problem"]) if Path(c["problem"]).is_absolute() else KB / c["problem"]
        cand = Path(c["candidate"]) if Path(c["candidate"]).is_absolute() else KB / c["candidate"]
        return run_verify(args, p, cand, c["precision"],
                          ["--no-timing", "--no-compile-baseline", "--seed-count", "1"],
                          "warm__" + tag_of(c))
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for c, doc in zip(jobs, pool.map(one, jobs)):
            print(f"warm {doc.get('verdict'):>13} {c['candidate'].split('/')[-1]} "
                  f"kb={kb_verdict(doc)} {round(doc.get('_wall_s', 0), 1)}s", flush=True)


def phase_timed(args, table):
    jobs = suite_jobs(args) if args.suite else []
    cs = controls(args)
    jobs += [(c, "cheat") for c in cs if needs_timing(c)]
    seen = set()
    for c in cs:  # one good candidate per problem: its first Triton one, else its first
        if args.no_positives:
            break
        if c["expect"] != "pass" or c["problem"] in seen or needs_timing(c):
            continue
        if "triton_" in c["candidate"] or not any(
                "triton_" in d["candidate"] for d in cs if d["problem"] == c["problem"]):
            seen.add(c["problem"])
            jobs.append((c, "positive"))
    t0 = time.time()
    for c, kind in jobs:
        if time.time() - t0 > args.timed_budget or time.time() > args.deadline:
            table.append({"phase": "timed", "candidate": c["candidate"], "verdict": "not run",
                          "reason": "timed budget spent"})
            continue
        p = Path(c["problem"]) if Path(c["problem"]).is_absolute() else KB / c["problem"]
        cand = Path(c["candidate"]) if Path(c["candidate"]).is_absolute() else KB / c["candidate"]
        seeds = "5" if kind == "cheat" else ("1" if kind == "suite" else "3")
        extra = ["--seed-count", seeds] + (["--no-compile-baseline"] if args.no_compile else [])
        doc = run_verify(args, p, cand, c["precision"], extra, (kind + "__" + tag_of(c)))
        timing = doc.get("timing") or {}
        row = {"phase": "timed", "kind": kind, "candidate": c["candidate"].split("/")[-1],
               "problem": Path(c["problem"]).stem, "precision": c["precision"],
               "expect": c["expect"], "verdict": doc.get("verdict"), "as_designed": judge(doc, c),
               "kernelbench": kb_verdict(doc),
               "kb_runtime_us": round((doc.get("kernelbench") or {}).get("runtime_ms", -1) * 1000, 1),
               "reach_median_us": timing.get("median_us"),
               "time_basis": (doc.get("reach") or {}).get("time_basis"),
               "event_median_us": timing.get("event_median_us"),
               "baseline": (doc.get("baseline") or {}).get("kind"),
               "baseline_us": (doc.get("baseline") or {}).get("used_us"),
               "speedup": doc.get("speedup"), "flags": doc.get("flags"),
               "fooled": doc.get("fooled"), "reason": (doc.get("reasons") or [""])[0][:140],
               "wall_s": round(doc.get("_wall_s", 0), 1)}
        table.append(row)
        print(f"timed {kind:8} {row['verdict']:>13} {'ok ' if row['as_designed'] else 'BAD'} "
              f"{row['candidate']} {row['precision']} reach={row['reach_median_us']} "
              f"kb={row['kb_runtime_us']} base={row['baseline']}:{row['baseline_us']} "
              f"x{row['speedup']} flags={row['flags']} {row['wall_s']}s", flush=True)


DO_BENCH = r'''
import json, sys, torch, triton, triton.testing
sys.path.insert(0, sys.argv[1])
from reach_kb import loading
problem, candidate, precision = sys.argv[2], sys.argv[3], sys.argv[4]
dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
prob = loading.load_problem(problem, "reach")
cand = loading.load_candidate(candidate, prob, "reach")
torch.manual_seed(42)
init = [x.to(dtype) if torch.is_tensor(x) and x.is_floating_point() else x for x in prob.get_init_inputs()]
model = cand.ModelNew(*init).to("cuda", dtype)
torch.manual_seed(1)
with torch.device("cuda"):
    xs = [x.to(dtype) if torch.is_tensor(x) and x.is_floating_point() else x for x in prob.get_inputs()]
xs = [x.cuda() if torch.is_tensor(x) else x for x in xs]
with torch.no_grad():
    meds = [triton.testing.do_bench(lambda: model(*xs), warmup=25, rep=200, return_mode="median")
            for _ in range(3)]
print(json.dumps({"do_bench_median_us": [m * 1000 for m in meds]}))
'''


def phase_timing(args, summary):
    pairs = [("reach_01_softmax/triton_fused.py", "reach_01_softmax.py"),
             ("reach_01_softmax/cuda_rowblock.py", "reach_01_softmax.py")]
    if args.timing_only:
        pairs = [p for p in pairs if any(k in p[0] for k in args.timing_only.split(","))]
    for cand, prob in pairs:
        meds = []
        for i in range(3):
            doc = run_verify(args, KB / "problems" / prob, KB / "candidates" / cand, "bf16",
                             ["--seed-count", "1", "--no-compile-baseline"],
                             "timingcheck__" + Path(cand).stem + f"__{i}")
            meds.append((doc.get("timing") or {}).get("median_us"))
        p = subprocess.run([sys.executable, "-c", DO_BENCH, str(ROOT / "resources" / "python"),
                            str(KB / "problems" / prob), str(KB / "candidates" / cand), "bf16"],
                           capture_output=True, text=True)
        try:
            db = json.loads(p.stdout.strip().splitlines()[-1])["do_bench_median_us"]
        except Exception:
            db = None
            print(p.stderr[-2000:])
        ok_meds = [m for m in meds if m]
        spread = (max(ok_meds) - min(ok_meds)) / statistics.median(ok_meds) if len(ok_meds) == 3 else None
        agree = (statistics.median(ok_meds) / statistics.median(db) - 1) if db and ok_meds else None
        s = {"candidate": cand, "reach_medians_us": meds, "reach_spread": spread,
             "do_bench_medians_us": db, "reach_over_do_bench_minus_1": agree}
        summary.setdefault("timing_check", []).append(s)
        print("timing", json.dumps(s), flush=True)


def _reverify_once(args, prob, cand, tag, walls):
    doc = run_verify(args, prob, cand, "fp32", [], tag)
    walls.append(round(doc.get("_wall_s", 0), 2))
    kb = doc.get("kernelbench", {}) or {}
    rp = (doc.get("reach", {}) or {}).get("phase_seconds")
    clock = [(round(c["value"], 1), round(c["threshold"], 1)) for c in doc.get("checks", [])
             if c.get("name") == "clock_agreement"]
    print(f"{tag}: {doc.get('verdict')} {walls[-1]} s clock_agreement (unexplained, allowed) {clock} "
          f"(kernelbench {kb.get('correctness')}, reused {bool(kb.get('reused'))}, "
          f"kb phases {kb.get('phase_seconds')}; reach phases {rp}; "
          f"median {(doc.get('timing') or {}).get('median_us')} us, baselines reused "
          f"{[bool(b.get('reused')) for b in (doc.get('reach') or {}).get('baselines', [])]})",
          flush=True)


def phase_reverify(args, summary):
    """The first job fills the caches (builds, KernelBench's verdict, baselines, kernel census);
    then three re-verifies of the unchanged candidate as reach-verify alone runs them, and three
    through a warm worker server (reach_kbserver.py), as the GUI and a batch run them: wall
    seconds end to end and where the reach worker's seconds went."""
    prob = KB / "problems" / "reach_06_gelu_tanh.py"
    cand = KB / "candidates" / "reach_06_gelu_tanh" / "triton_fused.py"
    walls, served = [], []
    for i in range(4):
        _reverify_once(args, prob, cand, f"reverify_1gib__{i}", walls)
    global _SERVER
    t0 = time.time()
    _SERVER = OwnedServer(python=sys.executable, wait_s=60)
    print(f"worker server ready after {time.time() - t0:.1f} s", flush=True)
    try:
        for i in range(args.server_reverifies):
            _reverify_once(args, prob, cand, f"reverify_1gib_server__{i}", served)
    finally:
        _SERVER.close()
        _SERVER = None
    summary["reverify_1gib_wall_s"] = walls
    summary["reverify_1gib_server_wall_s"] = served


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verifier", required=True)
    ap.add_argument("--suite", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--phases", default="sweep,timed,timing,reverify")
    ap.add_argument("--server-reverifies", type=int, default=3,
                    help="re-verifies through the warm worker server in the reverify phase")
    ap.add_argument("--timed-budget", type=float, default=240)
    ap.add_argument("--deadline-s", type=float, default=1e9,
                    help="start no timed job after this many seconds of the whole run")
    ap.add_argument("--sweep-done", default="", help="file of sweep tags already run")
    ap.add_argument("--no-positives", action="store_true", help="timed: suite and cheats only")
    ap.add_argument("--no-compile", action="store_true", help="no torch.compile baseline")
    ap.add_argument("--timing-only", default="", help="timing: candidates whose path holds one of these")
    args = ap.parse_args()
    args.deadline = time.time() + args.deadline_s
    Path(args.out).mkdir(parents=True, exist_ok=True)
    table, summary = [], {}
    t0 = time.time()
    for phase in args.phases.split(","):
        print(f"=== {phase} at {time.time() - t0:.0f} s", flush=True)
        try:
            {"sweep": lambda: phase_sweep(args, table), "timed": lambda: phase_timed(args, table),
             "warm": lambda: phase_warm(args, table),
             "timing": lambda: phase_timing(args, summary),
             "reverify": lambda: phase_reverify(args, summary)}[phase]()
        except Exception as e:
            print(f"phase {phase} failed: {e!r}", flush=True)
        (Path(args.out) / "table.json").write_text(json.dumps({"rows": table, "summary": summary},
                                                              indent=1))
    bad = [r for r in table if r.get("as_designed") is False]
    print(f"=== done in {time.time() - t0:.0f} s: {len(table)} rows, {len(bad)} not as designed")
    for r in bad:
        print("NOT AS DESIGNED:", json.dumps(r))


if __name__ == "__main__":
    main()
