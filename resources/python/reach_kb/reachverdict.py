"""The `reach` subcommand: Reach's oracle on a KernelBench-format candidate, in a fresh process.

Verdict vocabulary as the C++ verifier's: `pass` only when every check passes; `fail` with one
reason per failed check (its worst run); `compile_error` when the candidate cannot be loaded, built
or constructed; `no_gpu` when CUDA was asked for and there is none. A Python exception from the
candidate's forward is a `fail` (`runtime_error: ...`); `crashed` and `timeout` are the parent's.
"""

import math
import os
import time
import traceback

from . import categories, reachperf, thresholds as thresholds_mod
from .environment import set_seed
from .errors import CandidateLoadError
from .loading import describe, line_in, load_candidate, place
from .reachruns import KB_SEED, Job, one_run
from .report import worst


def skeleton(args):
    return {
        "mode": "reach", "verdict": None, "reasons": [], "checks": [], "runs": [], "metrics": None,
        "degenerate_reference": None, "category": None, "kernelbench_category": None,
        "reference_dtype": None, "thresholds": {}, "timing": None, "flags": [], "time_basis": None,
        "baselines": [], "baseline_used": None, "speedup": 0.0, "library_fallback": None,
        "candidate_kernels": None, "notes": [], "log": "", "versions": {}, "device": {},
        "phase_seconds": {},
        "precision": args.precision, "problem_file": args.problem, "candidate_file": args.candidate,
        "backend": None, "seeds": args.seeds, "scales": args.scales, "compile_log": None,
    }


class Prepared:
    """Problem-side work done before the candidate loads (errors here are bad input, exit 2)."""

    def __init__(self, torch, args, problem, worker_dir):
        self.thresholds = thresholds_mod.load(worker_dir, args.precision, args.thresholds)
        table = args.categories or categories.default_path(worker_dir)
        self.category, self.kb_category = categories.classify(table, problem.stem)
        set_seed(torch, KB_SEED)
        self.raw_init = list(problem.call("get_init_inputs()", problem.get_init_inputs))


def run(torch, args, problem, prep, device, res):
    notes = res["notes"]
    res["thresholds"] = dict(prep.thresholds)
    res["category"] = prep.category
    res["kernelbench_category"] = prep.kb_category
    job = Job(torch, args, problem, device, prep.thresholds, prep.category, notes)
    job.raw_init = prep.raw_init

    os.environ["TORCH_USE_CUDA_DSA"] = "1"  # as KernelBench: the same flags, so the same build cache
    try:
        cand = load_candidate(args.candidate, problem, "reach")
    except CandidateLoadError as e:
        return _compile_error(res, e.line, e.log)
    res["backend"] = cand.backend
    try:
        try:
            job.build_candidate(cand.ModelNew)
        except (KeyboardInterrupt,):
            raise
        except BaseException as e:
            line = place(args.candidate, line_in(e, cand.filename)) + f"ModelNew(*get_init_inputs()) raised {describe(e)}"
            return _compile_error(res, line, "".join(traceback.format_exception(type(e), e, e.__traceback__)))
        t0 = time.perf_counter()
        _runs(job, res)
        res["phase_seconds"]["checks"] = round(time.perf_counter() - t0, 3)
        _perf(job, cand, res)
    finally:
        cand.cleanup()
    res["reference_dtype"] = str(job.ref_dtype).replace("torch.", "")
    if job.cuda_fault:
        # Still a `fail` (a Python exception from forward), flagged so the caller can tell a
        # device fault, after which nothing else could run in this process.
        res["flags"].append("cuda_fault")
        res["notes"].append(f"cuda_fault: {job.cuda_fault}; no later check could run in this process")
    _aggregate(job, res)
    return res


def _compile_error(res, line, log):
    res["verdict"] = "compile_error"
    res["reasons"] = [line]
    res["compile_log"] = log
    return res


def _runs(job, res):
    for seed in job.args.seeds:
        for scale in job.args.scales:
            run, go_on = one_run(job, seed, scale)
            res["runs"].append(run)
            if not go_on:
                return


def _timeable(job):
    # A wrong answer is still timed, as the C++ path does: the user sees what a cheat would have
    # scored. Only a candidate that raised, or returned the wrong shape or type, is not.
    broken = {"runtime_error", "shape", "dtype"}
    return bool(job.run_checks) and not any(
        not c["passed"] and c["name"] in broken for c in job.run_checks)


def _perf(job, cand, res):
    if job.args.no_timing:
        res["notes"].append("timing not measured (--no-timing)")
    elif not _timeable(job):
        res["notes"].append("timing skipped: the candidate raised or returned the wrong shape")
    else:
        t0 = time.perf_counter()
        try:
            rec, ctx = reachperf.candidate_timing(job, res)
        except Exception as e:
            job.run_checks.append({"name": "runtime_error", "value": 1, "threshold": 0, "passed": False,
                                   "detail": f"raised {describe(e)} during timing", "where": "timing",
                                   "reason": f"runtime_error: {describe(e)} during timing"})
            res["log_traceback"] = traceback.format_exc()
            return
        res["timing"] = rec
        res["time_basis"] = rec["time_basis"]
        res["phase_seconds"]["timing"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
        res["baselines"] = reachperf.baselines(job, ctx, rec["input_sets"])
        res["phase_seconds"]["baselines"] = round(time.perf_counter() - t0, 3)
        res["baseline_used"], res["speedup"] = reachperf.speedup(res["baselines"], rec["median_us"])
        del ctx
    if job.model_new is not None and res["runs"] and res["runs"][-1].get("error") is None:
        t0 = time.perf_counter()
        reachperf.kernels(job, cand, res)
        res["phase_seconds"]["profiler"] = round(time.perf_counter() - t0, 3)


def _is_nan(v):
    return isinstance(v, float) and math.isnan(v)


def _worst_check(cs):
    def badness(c):
        v = c["value"]
        if v is None or _is_nan(v):
            return math.inf
        return -v if c["name"] == "written_fraction" else v
    return max(cs, key=badness)


def _aggregate(job, res):
    groups = {}
    for c in job.run_checks:
        groups.setdefault(c["name"], []).append(c)
    checks, reasons = [], []
    for name, cs in groups.items():
        failed = [c for c in cs if not c["passed"]]
        w = _worst_check(failed or cs)
        varies = len({repr(c["value"]) for c in cs}) > 1
        where = f" (worst at {w['where']})" if (failed or varies) and w["where"] != "timing" else ""
        checks.append({"name": name, "value": w["value"], "threshold": w["threshold"],
                       "passed": not failed, "detail": w["detail"] + where})
        if failed:
            reasons.append(w.get("reason") or f"{name}: {w['detail']}")
    res["checks"] = checks
    res["reasons"] = reasons
    res["verdict"] = "pass" if checks and not reasons else "fail"

    runs = [r for r in res["runs"] if r.get("rel_frobenius") is not None or r.get("total_count")]
    scale1 = [r for r in res["runs"] if r["scale"] == 1 and r.get("zeros_pass_kernelbench") is not None]
    pool = scale1 or [r for r in res["runs"] if r.get("zeros_pass_kernelbench") is not None]
    res["degenerate_reference"] = any(r["zeros_pass_kernelbench"] for r in pool) if pool else None
    measured = [r for r in runs if r.get("written_count") is not None]
    res["metrics"] = None if not runs else {
        "rel_frobenius": worst([r["rel_frobenius"] for r in runs]),
        "norm_max_error": worst([r["norm_max_error"] for r in runs]),
        "max_abs_reference": worst([r["max_abs_reference"] for r in runs], larger_is_worse=False),
        "total_count": runs[-1].get("total_count"),
        "written_count": min(r["written_count"] for r in measured) if measured else None,
        "written_fraction": min(r["written_fraction"] for r in measured) if measured else None,
        "non_finite": worst([r["non_finite"] for r in runs]),
        "canary_bytes_changed": 0,
        "inputs_unchanged": all(r["inputs_unchanged"] is not False for r in res["runs"]),
        # At scale x1 (the problem's own inputs, what KernelBench sees) when there are such runs.
        "kernelbench_allclose": all(bool(r["kernelbench_allclose"])
                                    for r in ([r for r in runs if r["scale"] == 1] or runs)),
        "zeros_pass_kernelbench": res["degenerate_reference"],
        "invariants": [c for c in checks if c["name"].startswith("invariant:")],
    }
    if res["metrics"] is not None:
        res["notes"].append("canary_bytes_changed: out-of-bounds writes are not measured by the "
                            "Python worker (always 0)")
    if job.cuda is False:
        res["notes"].append("cpu: written fraction (allocator NaN fill) not measured")
