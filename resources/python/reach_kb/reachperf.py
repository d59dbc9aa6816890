"""Honest timing of the candidate, its baselines in the same process, and its kernels' origin.

The candidate is timed BEFORE any baseline: a baseline's freed outputs are correct answers sitting
in the allocator's pool, which a `torch.empty` candidate could pick up.
"""

import math

from . import oracle, profiling, resultcache, timing
from .loading import describe
from .report import fmt

TIMING_SET_SEED = 1_000_000  # input sets for timing: seeds apart from the correctness seeds
CHECK_EVERY = 10


def _set_count(job, wanted, per_set_bytes):
    if not job.cuda:
        return wanted
    try:
        free, _total = job.torch.cuda.mem_get_info(job.device)
    except Exception:
        return wanted
    n = wanted
    while n > 2 and n * per_set_bytes > 0.4 * free:
        n -= 1
    if n < wanted:
        job.notes.append(f"timing: {n} input sets instead of {wanted} (GPU memory)")
    return n


def candidate_timing(job, res):
    """Times the candidate; adds `result_reuse` failures to job.run_checks. Returns the context
    (live inputs and sets) that the baselines reuse."""
    torch, args = job.torch, job.args
    first = job.draw(TIMING_SET_SEED, 1.0)
    per_set = sum(x.numel() * x.element_size() for x in first if isinstance(x, torch.Tensor))
    per_set += 4 * math.prod(job.expected_shape or [0])  # its reference, as float32
    n_sets = _set_count(job, args.input_sets, per_set)
    sets = [first] + [job.draw(TIMING_SET_SEED + k, 1.0) for k in range(1, n_sets)]
    # References of the sets, stored as float32 (2^-24 rounding, far below every threshold).
    refs = []
    for s in sets:
        r = job.reference(s)
        refs.append(r.float() if r.is_floating_point() else r)
    live = [x.clone() if isinstance(x, torch.Tensor) else x for x in sets[0]]
    t = job.thresholds

    def matches(out, ref):
        if not isinstance(out, torch.Tensor) or out.shape != ref.shape:
            return False
        m = oracle.compare(out, ref)
        return (m["non_finite"] == 0 and m["rel_frobenius"] <= t["rel_frobenius"]
                and m["norm_max_error"] <= t["norm_max_error"])

    def check(r, k, out):
        if matches(out, refs[k]):
            return None
        others = [j for j in range(len(refs)) if j != k and matches(out, refs[j])]
        extra = f" (it matches input set {others[0]} instead of set {k})" if others else ""
        return (f"result_reuse: output of repetition {r} matches no fresh reference "
                f"(stale/cached result?){extra}")

    flush, flush_n = None, 0
    if job.cuda:
        l2 = getattr(torch.cuda.get_device_properties(job.device), "L2_cache_size", 0)
        flush_n = timing.flush_bytes(l2)
        flush = torch.empty(flush_n, dtype=torch.uint8, device=job.device)
    clock = None
    if job.cuda:
        uuid = getattr(torch.cuda.get_device_properties(job.device), "uuid", None)
        clock = timing.SmClock(job.device.index, str(uuid) if uuid is not None else None)
    before = clock.mhz() if clock else -1
    samples, failures = timing.time_reps(torch, job.model_new, live, sets, args.reps, args.warmup,
                                         job.device, flush, check, CHECK_EVERY)
    after = clock.mhz() if clock else -1
    rec, flags, notes = timing.summarize(samples, args.warmup, job.device, flush_n, (before, after))
    rec["input_sets"] = len(sets)
    rec["checked_reps"] = len([r for r in range(args.reps)
                               if timing.is_checked(r, args.reps, len(sets), CHECK_EVERY)])
    if not job.cuda:
        job.notes.append("cpu: L2 flush, CUDA events and SM clocks not measured; host clock (perf_counter)")
    job.notes.extend(notes)
    res["flags"].extend(f for f in flags if f not in res["flags"])
    passed = not failures
    c = {"name": "result_reuse", "value": len(failures), "threshold": 0, "passed": passed,
         "detail": (f"{rec['checked_reps']} sampled timed outputs matched their fresh references"
                    if passed else failures[0]), "where": "timing"}
    if not passed:
        c["reason"] = failures[0]
    job.run_checks.append(c)
    return rec, {"live": live, "sets": sets, "flush": flush, "flush_n": flush_n, "clock": clock}


def _time_baseline(job, fn, ctx):
    torch, args = job.torch, job.args
    clock = ctx["clock"]
    before = clock.mhz() if clock else -1
    samples, _ = timing.time_reps(torch, fn, ctx["live"], ctx["sets"], args.reps, args.warmup,
                                  job.device, ctx["flush"])
    after = clock.mhz() if clock else -1
    rec, _flags, notes = timing.summarize(samples, args.warmup, job.device, ctx["flush_n"], (before, after))
    return rec, notes


def _reuse_key(job, kind, parts):
    if not job.args.cache_dir:
        return None
    parts = dict(parts, problem=resultcache.file_digest(job.args.problem), precision=job.args.precision,
                 device=_device_model(job))
    return None if parts["problem"] is None else resultcache.key(kind, parts)


def _device_model(job):
    if not job.cuda:
        return "cpu"
    try:
        return job.torch.cuda.get_device_name(job.device)
    except Exception:
        return "cuda"


def baselines(job, ctx, input_sets):
    """Eager and torch.compile(Model), timed like the candidate; reused from an earlier job on the
    same problem, precision, timing protocol, GPU model and stack unless --fresh (resultcache.py).
    Then the recorded baseline, when given."""
    args = job.args
    k = _reuse_key(job, "baselines", {"reps": args.reps, "warmup": args.warmup, "input_sets": input_sets,
                                      "compile": not args.no_compile_baseline})
    entry = resultcache.load(args.cache_dir, "baselines", k) if k and not args.fresh else None
    if entry:
        out = entry["value"]
        for b in out:
            b["reused"] = resultcache.reused(entry)
        job.notes.append(f"baselines: eager and torch.compile times reused, measured {entry['measured_at']} "
                         "on the same problem, precision, GPU model and stack (--fresh measures them again)")
    else:
        out = _measured_baselines(job, ctx)
        # A failure is not stored: it may be the run's (memory, a compiler hiccup), not the problem's.
        if k and all(b["us"] or b["note"].startswith(("skipped", "torch.compile unavailable")) for b in out):
            resultcache.store(args.cache_dir, "baselines", k, out)
    if args.recorded_baseline_us:
        out.append({"kind": "recorded", "timing": None, "us": args.recorded_baseline_us,
                    "note": args.recorded_baseline_source or "recorded time (--recorded-baseline-us)"})
    return out


def _measured_baselines(job, ctx):
    torch, args = job.torch, job.args
    out = []
    try:
        rec, notes = _time_baseline(job, job.kb_model, ctx)
        out.append({"kind": "eager", "timing": rec, "us": rec["median_us"],
                    "note": "; ".join(["the problem's Model at the precision"] + notes)})
    except Exception as e:
        out.append({"kind": "eager", "timing": None, "us": None, "note": f"failed: {describe(e)}"})
    if args.no_compile_baseline:
        out.append({"kind": "torch_compile", "timing": None, "us": None, "note": "skipped (--no-compile-baseline)"})
    elif not hasattr(torch, "compile"):
        out.append({"kind": "torch_compile", "timing": None, "us": None,
                    "note": f"torch.compile unavailable in PyTorch {torch.__version__}"})
    else:
        try:
            torch._dynamo.reset()
            compiled = torch.compile(job.kb_model)
            rec, notes = _time_baseline(job, compiled, ctx)  # the warm-up calls compile it
            out.append({"kind": "torch_compile", "timing": rec, "us": rec["median_us"],
                        "note": "; ".join(["torch.compile(Model), default mode (Inductor)"] + notes)})
        except Exception as e:
            out.append({"kind": "torch_compile", "timing": None, "us": None, "note": f"failed: {describe(e)}"})
    return out


def speedup(baseline_list, candidate_us):
    usable = [b for b in baseline_list if b["us"] and b["us"] > 0 and not math.isnan(b["us"])]
    if not usable or not candidate_us or candidate_us <= 0:
        return None, 0.0
    best = min(usable, key=lambda b: b["us"])
    return {"kind": best["kind"], "us": best["us"]}, best["us"] / candidate_us


def kernels(job, cand, res):
    """Profiles one candidate call (CUDA only) and sets candidate_kernels / library_fallback. Which
    kernels a candidate launches is a property of its code: reused like the baselines."""
    if not job.cuda:
        res["notes"].append("cpu: profiler kernel names not measured")
        return
    k = _reuse_key(job, "census", {"candidate": resultcache.file_digest(job.args.candidate)})
    entry = resultcache.load(job.args.cache_dir, "census", k) if k and not job.args.fresh else None
    if entry:
        census = entry["value"]
        census["reused"] = resultcache.reused(entry)
    else:
        census = _census(job, cand)
        if census is None:
            return
        if k:
            resultcache.store(job.args.cache_dir, "census", k, census)
    res["candidate_kernels"] = census["candidate_kernels"]
    res["library_fallback"] = census["library_fallback"]
    res["own_kernel_names"] = census["own_kernel_names"]
    if census.get("reused"):
        res["candidate_kernels_reused"] = census["reused"]
    if census.get("note"):
        res["notes"].append(census["note"])


def _census(job, cand):
    try:
        inputs = job.draw(TIMING_SET_SEED, 1.0)
        counts = profiling.kernels_of_call(job.torch, job.model_new, inputs, job.device)
    except Exception as e:
        job.notes.append(f"profiler failed: {describe(e)}")
        return None
    own = profiling.own_kernel_names(_source(job.args.candidate), cand.namespace)
    ks, fallback, note = profiling.summarize(counts, own)
    return {"candidate_kernels": ks, "library_fallback": fallback, "own_kernel_names": own, "note": note}


def _source(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return ""


def describe_speedup(used, value):
    if not used:
        return "no baseline"
    return f"{fmt(value)}x over {used['kind']} ({fmt(used['us'])} us)"
