#!/usr/bin/env python3
"""Reach's red team: every cheat in tests/data/redteam/redteam.json, run through reach-verify, with
the verdict each must get (tests/data/redteam/README.md).

    python3 scripts/redteam.py --verifier build/default/app/reach-verify --device cpu
    python3 scripts/redteam.py --verifier .devrun/reach-verify --device cuda --suite .kbsuite \\
        --seeds 1,2,3 --out "$OUT/redteam"

Each case runs once per seed (--seeds), `--jobs` at a time. A case is right when the verdict is
one of those it expects and, for a fail, at least one of its `trips` is among the failed checks
(or flags); with `max_speedup` (where an honest time is an acceptable outcome) a pass is right
only when its `speedup` is at most that. `args` are extra reach-verify options of one case.
Prints one line per run and a summary; exit 0 when every run was right, 1 otherwise, 2 on bad
usage. Scenarios (two verifies that belong together, e.g. a sandboxed candidate that
tries to rewrite the results cache, then an honest one on the same problem) are cases too.
"""

import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "data" / "redteam" / "redteam.json"


def resolve(ref, suite):
    kind, _, rest = ref.partition(":")
    if kind == "data":
        return ROOT / "tests" / "data" / rest
    if kind == "resources":
        return ROOT / "resources" / "kernelbench" / rest
    if kind == "res":
        return ROOT / "resources" / rest
    if kind == "suite":
        if not suite:
            return None
        return Path(suite) / rest
    raise ValueError(f"{MANIFEST}: unknown file reference {ref!r}")


SERVER = None  # reach_kbserver.OwnedServer under --via server


def verify(args, problem, candidate, seed, extra=(), env=None):
    cmd = [args.verifier, "--problem", str(problem), "--candidate", str(candidate),
           "--seed", str(seed), "--reps", str(args.reps), "--warmup", str(args.warmup),
           "--worker-timeout", str(args.timeout)]
    kb = str(problem).endswith(".py")
    if args.device == "cpu":
        cmd += ["--worker-device", "cpu", "--no-compile-baseline"]
    if args.python and kb:
        cmd += ["--python", args.python]
    if args.resources:
        cmd += ["--resources", args.resources]
    cmd += list(extra)
    pass_fds = ()
    conn = None
    if args.via == "sandbox" and kb and "--sandbox" not in cmd:
        cmd.append("--sandbox")
    elif args.via == "server" and kb and SERVER is not None:
        # As the GUI and a batch run it: a connection of the warm worker server's, made for this
        # reach-verify alone and inherited (docs/kernelbench.md, "Warm start").
        conn = SERVER.connect()
        pass_fds = (conn.fileno(),)
        env = dict(env or os.environ, REACH_KB_SERVER_FD=str(conn.fileno()))
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           timeout=args.timeout * 3, env=env, pass_fds=pass_fds)
    finally:
        if conn is not None:
            conn.close()
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        doc = {"verdict": "no_document", "reasons": [p.stderr.strip()[-300:] or p.stdout[-300:]]}
    doc["_exit"] = p.returncode
    doc["_wall_s"] = round(time.time() - t0, 1)
    doc["_cmd"] = cmd
    return doc


def failed(doc):
    return {c.get("name") for c in doc.get("checks", []) if not c.get("passed", True)} | set(doc.get("flags", []))


def judge(case, doc):
    verdict = doc.get("verdict")
    if verdict not in case["expect"]:
        return False, f"verdict {verdict}, expected {'/'.join(case['expect'])}"
    if verdict == "fail" and case.get("trips"):
        if not failed(doc) & set(case["trips"]):
            return False, f"failed {sorted(failed(doc))}, expected one of {case['trips']}"
    if verdict == "pass" and doc.get("_exit") != 0:
        return False, f"pass with exit {doc.get('_exit')}"
    if verdict == "pass" and case.get("max_speedup") is not None:
        speedup = doc.get("speedup") or 0.0
        if not speedup <= case["max_speedup"]:
            return False, f"pass at {speedup:.3g}x, above the {case['max_speedup']}x an honest time allows"
    return True, ""


def speedup_of(doc):
    return doc.get("speedup") or 0.0


def baseline_us(doc):
    used = (doc.get("baseline") or {}).get("used_us")
    return used or ((doc.get("reach") or {}).get("baseline_used") or {}).get("us")


def run_case(args, case, seed, cache_dir):
    env = dict(os.environ, REACH_CACHE_DIR=cache_dir)
    problem = resolve(case["problem"], args.suite)
    if case.get("scenario") == "sandboxed_cache_poison":
        # 1. an honest verify fills the results cache for the problem; 2. the poisoner, sandboxed,
        # tries to rewrite it; 3. the honest verify again: its baselines and speedup must be
        # what they were (reused or measured, never the poisoner's 1e9 us).
        honest = resolve(case["honest"], args.suite)
        first = verify(args, problem, honest, seed, env=env)
        poison = verify(args, problem, resolve(case["candidate"], args.suite), seed, ["--sandbox"], env=env)
        again = verify(args, problem, honest, seed, env=env)
        doc = dict(again)
        base = [b.get("us") for b in (again.get("reach") or {}).get("baselines", [])]
        sane = all(b is None or b < 1e8 for b in base) and (again.get("speedup") or 0) < 1e3
        if poison.get("verdict") == "no_document" and "bubblewrap" in " ".join(poison.get("reasons", [])):
            return {"case": case["name"], "seed": seed, "ok": None,
                    "why": "skipped: bwrap not installed", "verdict": "skipped", "wall": 0}
        ok = sane and first.get("verdict") == "pass" and again.get("verdict") == "pass"
        why = "" if ok else (f"after the poisoner ({poison.get('verdict')}): baselines {base}, "
                             f"speedup {again.get('speedup')}, verdicts {first.get('verdict')}/{again.get('verdict')}")
        return {"case": case["name"], "seed": seed, "ok": ok, "why": why, "verdict": doc.get("verdict"),
                "wall": first["_wall_s"] + poison["_wall_s"] + again["_wall_s"], "doc": doc}
    if case.get("scenario") == "kb_document_cache_poison":
        return kb_document_cache_poison(args, case, seed, problem, cache_dir, env)
    candidate = resolve(case["candidate"], args.suite)
    if problem is None or candidate is None or not problem.exists() or not candidate.exists():
        return {"case": case["name"], "seed": seed, "ok": None, "verdict": "skipped",
                "why": f"skipped: {case['problem']} or {case['candidate']} not here (--suite?)", "wall": 0}
    if case.get("no_leftovers"):
        # A copy of this run's own, so that the check below sees this run's processes only:
        # another red team running at the same time (ctest -j) runs the same candidate file.
        own = Path(tempfile.mkdtemp(prefix="reach-redteam-candidate-")) / f"{case['name']}_{seed}_{os.getpid()}.py"
        shutil.copyfile(candidate, own)
        candidate = own
    doc = verify(args, problem, candidate, seed, case.get("args", []), env=env)
    ok, why = judge(case, doc)
    if ok and case.get("no_leftovers"):
        # Processes the candidate started must all be gone once the job has ended. A sandbox's
        # processes die with its PID namespace, which the kernel tears down just after the job
        # returns: a few seconds' grace, far below the daemons' 120 s.
        for _ in range(30):
            left = subprocess.run(["pgrep", "-f", "-a", "python"], capture_output=True,
                                  text=True).stdout
            if str(candidate) not in left:
                break
            time.sleep(0.1)
        else:
            ok, why = False, "processes of the candidate outlived the job"
    if case.get("no_leftovers"):
        shutil.rmtree(candidate.parent, ignore_errors=True)
    return {"case": case["name"], "seed": seed, "ok": ok, "why": why, "verdict": doc.get("verdict"),
            "wall": doc["_wall_s"], "doc": doc,
            "reasons": doc.get("reasons", [])[:2]}


def kb_document_cache_poison(args, case, seed, problem, cache_dir, env):
    """1. the honest candidate alone, with a cache of its own: the speedup it reports; 2. the
    poisoner (`poison_args`, e.g. --sandbox), with the scenario's cache: loaded in KernelBench's
    reproduction worker, it makes that worker's document ask reach-verify to store a planted
    baseline for the problem; 3. the honest candidate again, with the scenario's cache: its
    baseline and speedup must be what they were alone (within 3x: two honest runs on a busy host
    differ, a planted baseline is 10-100x)."""
    honest = resolve(case["honest"], args.suite)
    alone_cache = cache_dir + "-alone"
    os.makedirs(alone_cache, mode=0o700, exist_ok=True)
    alone = verify(args, problem, honest, seed, env=dict(env, REACH_CACHE_DIR=alone_cache),
                   extra=["--cache-dir", alone_cache])
    poison = verify(args, problem, resolve(case["candidate"], args.suite), seed,
                    ["--cache-dir", cache_dir] + list(case.get("poison_args", [])), env=env)
    again = verify(args, problem, honest, seed, ["--cache-dir", cache_dir], env=env)
    wall = alone["_wall_s"] + poison["_wall_s"] + again["_wall_s"]
    if poison.get("verdict") == "no_document" and "bubblewrap" in " ".join(poison.get("reasons", [])):
        return {"case": case["name"], "seed": seed, "ok": None, "why": "skipped: bwrap not installed",
                "verdict": "skipped", "wall": 0}
    s0, s1 = speedup_of(alone), speedup_of(again)
    b0, b1 = baseline_us(alone), baseline_us(again)
    # The baseline is what a planted entry changes (10-100x); the speedup of a 16x64 add is a few
    # microseconds against the judge's host clock on a busy machine, noise either way, so it must
    # only stay bounded: a planted baseline read through the harness gave 8-20x.
    sane = s0 > 0 and s1 <= max(3.0 * s0, 5.0) and b0 and b1 and b1 <= 5.0 * b0
    ok = sane and alone.get("verdict") == "pass" and again.get("verdict") == "pass"
    why = "" if ok else (f"after the poisoner ({poison.get('verdict')}): speedup {s1:.3g}x, baseline "
                         f"{b1} us; alone {s0:.3g}x, {b0} us; verdicts {alone.get('verdict')}/"
                         f"{again.get('verdict')}")
    doc = dict(again, _alone=alone, _poison=poison)
    return {"case": case["name"], "seed": seed, "ok": ok, "why": why, "verdict": again.get("verdict"),
            "wall": wall, "doc": doc}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--verifier", required=True)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--suite", help="a folder with KernelBench's suite files (level1/, candidates/)")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--python", help="the interpreter with PyTorch (reach-verify --python)")
    ap.add_argument("--resources", help="Reach's resources folder (reach-verify --resources), e.g. a "
                                        "worktree's own resources/ with a verifier built elsewhere")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--out", help="write every document and summary.json here")
    ap.add_argument("--via", choices=("plain", "sandbox", "server"), default="plain",
                    help="how KernelBench-format cases run: reach-verify alone, under --sandbox, or "
                         "through a warm worker server as the GUI and batches run them")
    args = ap.parse_args()
    if args.via == "sandbox" and (shutil.which("bwrap") is None or subprocess.run(
            ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "/bin/true"],
            capture_output=True).returncode != 0):
        # A machine whose bubblewrap cannot create namespaces (a container's seccomp) cannot run
        # --sandbox at all: skipped, said so (exit 77: ctest's SKIP_RETURN_CODE).
        print("redteam: skipped: bubblewrap is missing or cannot create namespaces here (--via sandbox)")
        return 77
    global SERVER
    if args.via == "server":
        sys.path.insert(0, str(ROOT / "resources" / "python"))
        import reach_kbserver
        SERVER = reach_kbserver.OwnedServer(python=args.python or sys.executable)
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        print(f"redteam.py: --seeds: expected integers, got {args.seeds!r}", file=sys.stderr)
        return 2
    if not os.access(args.verifier, os.X_OK):
        print(f"redteam.py: {args.verifier}: not an executable reach-verify", file=sys.stderr)
        return 2
    cases = [c for c in json.loads(MANIFEST.read_text())["cases"] if c["device"] == args.device]
    if args.only:
        want = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in want]
    # The longest jobs first (19_ReLU holds ~45 GiB for minutes): the others fill in around them.
    cases.sort(key=lambda c: "19_ReLU" not in c["problem"])
    cache_root = tempfile.mkdtemp(prefix="reach-redteam-")
    os.chmod(cache_root, 0o700)
    results = []
    try:
        with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futs = []
            for case in cases:
                for seed in seeds:
                    # Scenarios share nothing with other runs: each has a cache of its own. The
                    # other cases share one (a problem's baselines are measured once).
                    cache = (os.path.join(cache_root, f"{case['name']}-{seed}") if case.get("scenario")
                             else os.path.join(cache_root, "shared"))
                    os.makedirs(cache, mode=0o700, exist_ok=True)
                    futs.append(pool.submit(run_case, args, case, seed, cache))
            for f in cf.as_completed(futs):
                r = f.result()
                results.append(r)
                if args.out and "doc" in r:  # at once: a run cut short by its timeout keeps these
                    docs = Path(args.out) / "docs"
                    docs.mkdir(parents=True, exist_ok=True)
                    (docs / f"{r['case']}-{r['seed']}.json").write_text(json.dumps(r["doc"], indent=1))
                mark = "ok  " if r["ok"] else ("SKIP" if r["ok"] is None else "BAD ")
                queue = (r.get("doc") or {}).get("queue_s")
                print(f"{mark} {r['case']:28s} seed {r['seed']}: {r['verdict']:10s} {r['wall']:6.1f} s"
                      f"{f' (waited {queue:.0f} s)' if queue else ''}"
                      f"  {r['why'] or '; '.join(x[:90] for x in r.get('reasons', []))}", flush=True)
    finally:
        shutil.rmtree(cache_root, ignore_errors=True)
        if SERVER is not None:
            SERVER.close()
    bad = [r for r in results if r["ok"] is False]
    skipped = [r for r in results if r["ok"] is None]
    print(f"redteam: {len(results) - len(bad) - len(skipped)} right, {len(bad)} wrong, "
          f"{len(skipped)} skipped, of {len(results)} runs ({args.device})")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(
            [{k: v for k, v in r.items() if k != "doc"} for r in results], indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
