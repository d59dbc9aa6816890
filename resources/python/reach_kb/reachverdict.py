"""The `reach` subcommand: Reach's oracle on a KernelBench-format candidate, with the candidate kept in
a process of its own (judge.py says how the three processes share the work).

Verdict vocabulary as the C++ verifier's: `pass` only when every check passes; `fail` with one
reason per failed check (its worst run); `compile_error` when the candidate cannot be loaded,
built or constructed; `crashed` / `timeout` when the runner dies or stops answering; `error` when
the job could not be judged (out of GPU memory: "out of GPU memory: N GiB needed, M GiB free");
`no_gpu`. The controller adds the clock agreement and the roofline floor (verdictpolicy.h) from
what this document reports.
"""

import math
import os
import random
import time
import traceback

from . import categories, channel, gpulock, gpumemory, procwatch, resultcache
from . import thresholds as thresholds_mod
from .environment import set_seed, synchronize
from .errors import UserError
from .judge import CHECKED_REPS, KB_SEED, Judge, _is_oom
from .judgeruns import add, claims, new_run, sampled, values, where_of
from .judgetiming import Bench, Calibration, ClockUnavailable, clock_samples, record
from .loading import describe
from .report import fmt, worst

THREAD_GRACE_S = 0.1


def skeleton(args):
    return {
        "mode": "reach", "verdict": None, "reasons": [], "checks": [], "runs": [], "metrics": None,
        "degenerate_reference": None, "category": None, "kernelbench_category": None,
        "reference_dtype": None, "thresholds": {}, "timing": None, "flags": [], "time_basis": None,
        "baselines": [], "baseline_used": None, "speedup": 0.0, "library_fallback": None,
        "candidate_kernels": None, "notes": [], "log": "", "versions": {}, "device": {},
        "phase_seconds": {}, "calibration": None, "roofline_inputs": None, "cache_store": [],
        "runner_log": "", "processes_killed": 0,
        "precision": args.precision, "problem_file": args.problem, "candidate_file": args.candidate,
        "backend": None, "seeds": args.seeds, "scales": args.scales, "variants": None, "compile_log": None,
    }


class Prepared:
    """Problem-side work done before anything runs (errors here are bad input, exit 2)."""

    def __init__(self, torch, args, problem, worker_dir):
        self.thresholds = thresholds_mod.load(worker_dir, args.precision, args.thresholds)
        table = args.categories or categories.default_path(worker_dir)
        self.category, self.kb_category = categories.classify(table, problem.stem)
        set_seed(torch, KB_SEED)
        self.raw_init = list(problem.call("get_init_inputs()", problem.get_init_inputs))


class Stop(Exception):
    """The job ends early with a verdict of its own (crashed, timeout, error)."""

    def __init__(self, verdict, reason):
        super().__init__(reason)
        self.verdict = verdict
        self.reason = reason


def runner_env(args):
    """Where the runner's builds go. The candidate's load_inline and Triton builds: a folder per
    candidate source (environment.extension_dir), so no candidate reads or plants another's.
    The torch.compile baseline's Inductor cache: shared between jobs, except in a sandbox,
    where the runner gets a private one (a candidate loaded after the baseline could otherwise
    plant kernels for the next job's baseline)."""
    import tempfile
    from .environment import extension_dir
    env = {}
    if args.cache_dir:
        env["TORCH_EXTENSIONS_DIR"] = extension_dir(args.cache_dir, args.candidate)
        digest = os.path.basename(env["TORCH_EXTENSIONS_DIR"])
        env["TRITON_CACHE_DIR"] = os.path.join(args.cache_dir, "triton", digest)
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(args.cache_dir, "inductor")
    if os.environ.get("REACH_SANDBOXED") == "1" or not args.cache_dir:
        env["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="reach-inductor-")
    # Inductor compiles in the runner's own process: a pool of compile workers would outlive
    # the baseline, and processes left beside the candidate are what the judge looks for.
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    return env


def run(torch, args, problem, prep, device, res, handle, cache_in):
    notes = res["notes"]
    res["thresholds"] = dict(prep.thresholds)
    res["category"] = prep.category
    res["kernelbench_category"] = prep.kb_category
    j = Judge(torch, args, problem, device, prep, res, handle)
    res["variants"] = [v.label for v in j.variants]
    try:
        try:
            _job(j, res, cache_in)
        except Stop as s:
            res["verdict"] = s.verdict
            res["reasons"] = [s.reason]
        except (channel.RunnerGone, channel.ProtocolError) as e:
            res["verdict"] = "crashed"
            res["reasons"] = [f"crashed: the runner broke off ({e})"]
        except channel.Silent as e:
            res["verdict"] = "timeout"
            res["reasons"] = [f"timeout: the runner stopped answering ({e})"]
        except UserError:
            raise
        except ClockUnavailable as e:
            res["verdict"] = "error"
            res["reasons"] = [f"error: {e}"]
        except BaseException as e:
            if not _is_oom(e):
                raise
            res["verdict"] = "error"
            res["reasons"] = [_oom_line(torch, device, e)]
            res["flags"].append("out_of_memory")
    finally:
        try:
            j.drop_slot()
        except Exception:
            pass
        handle.end()
        if getattr(j, "booking", None) is not None:
            j.booking.release()
        res["processes_killed"] = handle.killed_others
        res["runner_log"] = handle.log.text()
    res["reference_dtype"] = str(j.ref_dtype).replace("torch.", "")
    if j.cuda_fault:
        res["flags"].append("cuda_fault")
        notes.append(f"cuda_fault: {j.cuda_fault}; no later check could run in the runner")
    if res["verdict"] is None:
        _aggregate(j, res)
    return res


def _book_memory(j, res):
    """Waits in turn for the GPU memory this job will hold (gpumemory.py), before its first
    allocation: beside other jobs on the GPU it starts only when it fits."""
    booking = gpumemory.book(j.torch, j.device, j.problem, j.dtype, j.raw_init, "judge", res["notes"])
    if booking is not None:
        res.setdefault("memory", {}).update(booking.record(j.torch.cuda.mem_get_info(j.device)[1]))
    return booking


def _job(j, res, cache_in):
    torch, args = j.torch, j.args
    j.booking = _book_memory(j, res)
    gpulock.hold_shared()  # other verifiers on this GPU may overlap everything but timing
    t0 = time.perf_counter()
    j.learn()
    t1 = time.perf_counter()
    j.bench = Bench(torch, j.device, res["notes"])
    t2 = time.perf_counter()
    j.hello(runner_env(args))
    res["phase_seconds"]["setup"] = round(time.perf_counter() - t0, 3)
    # Its parts, for the warm re-verify's budget (docs/measurements/
    # 2026-12-04-the-calibration-loop-and-the-warm-reverify.md): the judge's draws and reference
    # call, the timing bench, the runner's start and hello.
    res["phase_seconds"]["setup_parts"] = {"learn": round(t1 - t0, 3), "bench": round(t2 - t1, 3),
                                           "runner_hello": round(time.perf_counter() - t2, 3)}
    timing = not args.no_timing
    base = None
    if timing:
        t0 = time.perf_counter()
        base = _trusted_phase(j, res, cache_in)
        res["phase_seconds"]["baselines"] = round(time.perf_counter() - t0, 3)

    reply = j.use("candidate", candidate=os.path.abspath(args.candidate))
    if reply.get("op") == "error":
        raise Stop("crashed", f"crashed: the runner failed to load the candidate ({reply.get('error')})")
    if not reply.get("ok"):
        if reply.get("oom"):
            raise Stop("error", oom_line(str(reply.get("log") or reply.get("line"))) + " while the candidate was built")
        res["verdict"] = "compile_error"
        res["reasons"] = [str(reply.get("line"))]
        res["compile_log"] = reply.get("log")
        return
    res["backend"] = reply.get("backend")
    j.loaded = True
    # Processes of the trusted phase (none expected: Inductor compiles in-process here) are not
    # the candidate's; it is only now loaded.
    j.trusted_processes = set(procwatch.descendants(os.getpid())) - {j.handle.pid}
    _patched(j, reply, "after the candidate was loaded")
    j.threads_after_load = procwatch.threads(j.handle.pid)

    t0 = time.perf_counter()
    _correctness_runs(j, res)
    res["phase_seconds"]["checks"] = round(time.perf_counter() - t0, 3)
    if timing and _timeable(j):
        t0 = time.perf_counter()
        _candidate_timing(j, res, base)
        res["phase_seconds"]["timing"] = round(time.perf_counter() - t0, 3)
    elif timing:
        res["notes"].append("timing skipped: the candidate raised or returned the wrong shape")
    else:
        res["notes"].append("timing not measured (--no-timing)")
    # Audited before the census: the profiler's own set-up is Reach's, not the candidate's.
    reply = j.ask({"op": "audit"})
    _patched(j, reply, "at the end of the job")
    if j.cuda and res["runs"] and res["runs"][-1].get("error") is None:
        t0 = time.perf_counter()
        _census(j, res, cache_in)
        res["phase_seconds"]["profiler"] = round(time.perf_counter() - t0, 3)
    if j.cuda:
        # Where the GPU memory went (docs/kernelbench.md, "Memory"): each process's peak of
        # PyTorch's allocator, and the shared regions (outside it, counted once for both).
        res.setdefault("memory", {}).update({
            "judge_max_reserved_bytes": int(torch.cuda.max_memory_reserved(j.device)),
            "runner_max_reserved_bytes": reply.get("max_reserved"),
            "shared_bytes": sum(r.total for r in j.shared.regions) + int(j.out_bytes)})


# ---- trusted phase: baselines and the clock's calibration -------------------------------------
def _trusted_phase(j, res, cache_in):
    """The problem's Model timed through the runner before the candidate is loaded, exactly as the
    candidate will be: the eager baseline and, from the same loop, the calibration of the harness's
    part of the judge's window (judgetiming.Calibration), then torch.compile's. The eager loop
    runs on every verify (it is the calibration, and a baseline the cache cannot plant); only
    torch.compile's time, whose Inductor build is most of a job's seconds, is reused."""
    torch, args = j.torch, j.args
    j.new_slot()
    key = resultcache.baseline_key(args, j)
    cached = resultcache.lookup(cache_in, "baselines", key) if key and not args.fresh else None
    # The calibration loop is the candidate's loop in every respect but the callable: as many
    # repetitions and warm-up calls. A shorter one (30 after 3, tried first) read the host's part
    # of the exchange in its first, slower calls (docs/measurements/
    # 2026-12-04-the-calibration-loop-and-the-warm-reverify.md).
    j.use("eager")
    eager, _ = j.timed_loop(args.reps, args.warmup, j.gather())
    _loop_failure(j, eager, "the problem's Model (eager)")
    cal = Calibration(eager, j.cuda)
    j.calibration = cal
    rec = record(cal.figures(eager), eager, args.warmup, j.bench, j.cuda)
    # The repetitions themselves, as the candidate's timing has them: the exact projection
    # (docs/benchmark.md) resamples them for its interval instead of assuming a shape.
    rec["clock"] = clock_samples(eager, cal)
    measured = [{"kind": "eager", "timing": rec, "us": rec["median_us"],
                 "note": "the problem's Model at the precision, timed like the candidate"}]
    compiled = None
    if cached:
        for b in cached["value"] if isinstance(cached.get("value"), list) else []:
            if isinstance(b, dict) and b.get("kind") == "torch_compile":
                compiled = dict(b, reused=resultcache.reused(cached))
        if compiled is not None:
            res["notes"].append(f"baselines: torch.compile's time reused, measured {cached['measured_at']} on "
                                "the same problem, precision, GPU model and stack (--fresh measures it again)")
    if compiled is None:
        compiled = _compile_baseline(j)
        if key and (compiled["us"] or compiled["note"].startswith(("skipped", "torch.compile unavailable"))):
            res["cache_store"].append(resultcache.to_store("baselines", key, [compiled]))
    measured.append(compiled)
    j.drop_slot()
    j.ask({"op": "release"})
    res["calibration"] = dict(cal.record(), which="eager", reps=cal.reps, median_us=rec["median_us"])
    out = [dict(b) for b in measured]
    if args.recorded_baseline_us:
        out.append({"kind": "recorded", "timing": None, "us": args.recorded_baseline_us,
                    "note": args.recorded_baseline_source or "recorded time (--recorded-baseline-us)"})
    res["baselines"] = out
    return out


def _compile_baseline(j):
    torch, args = j.torch, j.args
    if args.no_compile_baseline:
        return {"kind": "torch_compile", "timing": None, "us": None, "note": "skipped (--no-compile-baseline)"}
    if not hasattr(torch, "compile"):
        return {"kind": "torch_compile", "timing": None, "us": None,
                "note": f"torch.compile unavailable in PyTorch {torch.__version__}"}
    reply = j.use("compile")
    if reply.get("op") == "error":
        return {"kind": "torch_compile", "timing": None, "us": None, "note": f"failed: {reply.get('error')}"}
    loop, _ = j.timed_loop(args.reps, args.warmup, j.gather())  # the warm-up calls compile it
    if loop.failure:
        return {"kind": "torch_compile", "timing": None, "us": None, "note": f"failed: {_failure_text(loop)}"}
    rec = record(j.calibration.figures(loop), loop, args.warmup, j.bench, j.cuda)
    rec["clock"] = clock_samples(loop, j.calibration)
    return {"kind": "torch_compile", "timing": rec, "us": rec["median_us"],
            "note": "torch.compile(Model), default mode (Inductor), timed like the candidate"}


def _failure_text(loop):
    kind, what = loop.failure
    if kind == "reply":
        return str(what.get("error") or ("no output handed over" if not what.get("copied") else what.get("op")))
    return str(what)


def _loop_failure(j, loop, what):
    """A loop of the trusted phase that broke: the job cannot be judged."""
    if not loop.failure:
        return
    kind, info = loop.failure
    if kind == "reply" and info.get("oom"):
        raise Stop("error", oom_line(str(info.get("error"))) + f" while timing {what}")
    raise Stop("error", f"error: timing {what} failed: {_failure_text(loop)}")


# ---- the candidate ------------------------------------------------------------------------------
def _patched(j, reply, when):
    names = reply.get("patched") or []
    n = reply.get("patched_count") or len(names)
    if not isinstance(names, list):
        names = []
    shown = ", ".join(str(x) for x in names[:5]) + (f" and {n - 5} more" if n > 5 else "")
    add(j.checks, when, "torch_unpatched", n, 0, n == 0,
        "torch, torch.nn.functional, torch.Tensor, torch.cuda and time as the runner found them"
        if n == 0 else f"the candidate replaced {shown}",
        f"torch_unpatched: the candidate replaced {shown} ({when})")


def _processes(j, where, first_call):
    """From /proc: processes the candidate left behind, threads it started and left running."""
    pid = j.handle.pid
    # The runner's own descendants, and whatever left its tree (a double fork, setsid) and came
    # to the judge, which is a subreaper: every process of this job but the runner itself.
    kids = sorted(set(procwatch.descendants(os.getpid())) - {pid} - j.trusted_processes)
    names = sorted({procwatch.comm(k) for k in kids})
    add(j.checks, where, "processes", len(kids), 0, not kids,
        "no process left running after forward returned" if not kids
        else f"{len(kids)} process(es) left running after forward returned ({', '.join(names)})",
        f"processes: the candidate left {len(kids)} process(es) running after forward returned "
        f"({', '.join(names)}) at {where}")
    n = procwatch.threads(pid)
    if first_call:
        # Libraries start their pools on a first call (Triton, OpenMP): count from after it.
        j.threads_after_load = max(j.threads_after_load or 0, n)
        return
    extra = n - (j.threads_after_load or n)
    if extra > 0:
        time.sleep(THREAD_GRACE_S)
        extra = procwatch.threads(pid) - j.threads_after_load
    add(j.checks, where, "threads", max(extra, 0), 0, extra <= 0,
        "no thread started by forward is left running" if extra <= 0
        else f"{extra} thread(s) started by forward are still running after it returned",
        f"threads: {extra} thread(s) started by forward are still running after it returned at {where}")


def _correctness_runs(j, res):
    for seed in j.args.seeds:
        for variant in list(j.variants):
            if variant not in j.variants:
                continue  # dropped at an earlier seed: its draws are outside the problem's domain
            run, go_on = _one_run(j, seed, variant, first=not res["runs"])
            if run is None:
                continue
            res["runs"].append(run)
            if not go_on:
                return
    reply = j.ask({"op": "audit"})
    _patched(j, reply, "after the correctness runs")


def _one_run(j, seed, variant, first):
    torch = j.torch
    run = new_run(seed, variant)
    where = where_of(seed, variant)
    j.drop_slot()
    x = j.draw(seed, variant)
    j.layout.check(x, where)
    vals = j.shared.load(x)
    del x
    j.empty_cache()
    before = j.checksum.of_regions(j.shared.regions)
    ref = j.reference(j.shared.as_inputs(vals))
    finite = bool(torch.isfinite(ref).all().item()) if ref.is_floating_point() else True
    if variant.kind == "scaled" and variant.scale == 1:
        j.finite_at_x1[seed] = finite
    elif variant.kind == "centred" and not finite and j.finite_at_x1.get(seed, False):
        # Mean-zero draws outside the problem's domain (a log, a square root): not a test of it.
        j.variants.remove(variant)
        j.notes.append(f"centred inputs skipped: the reference is not finite on them at seed {seed} "
                       f"where it is on the problem's own draws (outside the problem's domain)")
        del ref
        return None, True
    if ref.dtype == torch.float64 and ref.numel() * 8 > max(1 << 30, 2 * j.out_bytes):
        ref = ref.float()  # held as float32 (2^-24 rounding, far below every threshold): memory
    j.empty_cache()
    j.new_slot()
    j.slot_region.data.fill_(0xFF)
    for r in j.shared.regions:
        r.fill_canaries()
    j.slot_region.fill_canaries()
    j.bench.sync()
    rid = f"check-{seed}-{variant.label}"
    reply = j.ask({"op": "run", "id": rid, "values": vals, "fill": j.out_bytes, "release": True})
    if reply.get("op") != "ran" or reply.get("id") != rid:
        raise channel.ProtocolError(f"expected the answer to {rid}, got {reply.get('op')!r} "
                                    f"{reply.get('id')!r}: {reply.get('error')}")
    if reply.get("oom"):
        raise Stop("error", oom_line(str(reply.get("error"))) + " in the candidate's forward")
    if reply.get("error"):
        run["error"] = reply["error"]
        add(j.checks, where, "runtime_error", 1, 0, False, f"ModelNew.forward raised {reply['error']}",
            f"runtime_error: {reply['error']} at {where}")
        if reply.get("cuda_fault"):
            j.cuda_fault = reply["error"]
        return run, False
    ok = claims(j.checks, run, reply, j.expected_shape, j.expected_dtype, where, j.reference_aliases)
    after = j.checksum.of_regions(j.shared.regions)
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    run["inputs_unchanged"] = not changed
    if not j.reference_modifies:
        add(j.checks, where, "inputs_unchanged", len(changed), 0, not changed,
            "inputs unchanged" if not changed else f"the candidate modified input(s) {changed}",
            f"inputs_unchanged: the candidate modified input(s) {changed} at {where}")
    damage = j.shared.canary_damage() + j.slot_region.canary_damage()
    run["canary_bytes_changed"] = damage
    add(j.checks, where, "canaries", damage, 0, damage == 0,
        "no write past the ends of the inputs or the output" if not damage
        else f"{damage} canary bytes around the inputs or the output changed (out-of-bounds writes)",
        f"canaries: {damage} bytes written past the ends of the inputs or the output at {where}")
    _processes(j, where, first)
    from .oracle import zeros_pass
    run["zeros_pass_kernelbench"] = zeros_pass(ref, j.expected_dtype, j.kb_tol) \
        if ref.is_floating_point() and j.expected_dtype.is_floating_point else None
    if ok:
        values(torch, j.checks, run, j.slot, ref, j.thresholds, j.expected_dtype, j.kb_tol, where,
               j.invariants, lambda: j.shared.as_inputs(vals))
    del ref
    j.drop_slot()
    return run, ok


def _timeable(j):
    # A wrong answer is still timed, as the C++ path does: the user sees what a cheat would have
    # scored. Only a candidate that raised, or returned the wrong shape or type, is not.
    broken = {"runtime_error", "shape", "dtype", "output_type", "output_received"}
    return bool(j.checks) and not any(not c["passed"] and c["name"] in broken for c in j.checks)


def _pick_checked(variants):
    """Secret positions among the timed repetitions (their variants in order): the last, one of
    every variant the loop drew from (a kernel wrong on one distribution only, relu(x) = x on
    non-negative inputs, is caught whichever were chosen), at least half of the rest from the
    second half (late repetitions are where warm-up detectors cheat), the others anywhere."""
    n = len(variants)
    rng = random.Random(int.from_bytes(os.urandom(8), "little"))
    k = min(n, CHECKED_REPS)
    chosen = {n - 1} if n else set()
    by_variant = {}
    for i, v in enumerate(variants):
        by_variant.setdefault(v, []).append(i)
    for v, idx in by_variant.items():
        if not any(i in chosen for i in idx):
            chosen.add(rng.choice(idx))
    late = [r for r in range(n // 2, n - 1) if r not in chosen]
    rng.shuffle(late)
    chosen.update(late[: max(0, k // 2 - len(chosen))])
    rest = [r for r in range(n) if r not in chosen]
    rng.shuffle(rest)
    chosen.update(rest[: max(0, k - len(chosen))])
    return sorted(chosen)


def _timing_claims(j, loop):
    """What the runner's answers in the timed loop gave away (judgetiming._claims): one check per
    kind, its first repetition named."""
    seen = {}
    for r, name, phrase in loop.claims:
        seen.setdefault(name, (r, phrase, 0))
        first_r, first_p, count = seen[name]
        seen[name] = (first_r, first_p, count + 1)
    for name, (r, phrase, count) in seen.items():
        add(j.checks, "timing", name, count, 0, False,
            f"{phrase} (timed call {r + 1}; {count} call(s) in all)",
            f"{name}: {phrase} in {count} timed call(s), the first call {r + 1}")


def _candidate_timing(j, res, baselines):
    torch, args = j.torch, j.args
    j.new_slot()
    gather = j.gather()
    idx = gather[1]
    t0 = time.perf_counter()
    loop, source = j.timed_loop(args.reps, args.warmup, gather)
    parts = res["phase_seconds"].setdefault("timing_parts", {})
    parts["loop"] = round(time.perf_counter() - t0, 3)
    if loop.failure:
        kind, info = loop.failure
        if kind == "timeout":
            raise Stop("timeout", f"timeout: {info}")
        if kind == "crashed":
            raise Stop("crashed", f"crashed: {info}")
        if kind == "unreadable":
            add(j.checks, "timing", "timed_outputs", 1, 0, False, info, f"timed_outputs: {info}")
            return
        if info.get("oom"):
            raise Stop("error", oom_line(str(info.get("error"))) + " while the candidate was timed")
        text = info.get("error") or "the output was not handed over"
        add(j.checks, "timing", "runtime_error", 1, 0, False, f"raised {text} during timing",
            f"runtime_error: {text} during timing")
        if info.get("cuda_fault"):
            j.cuda_fault = text
        return
    cal = j.calibration
    figures = cal.figures(loop) if cal is not None else list(loop.e)
    rec = record(figures, loop, args.warmup, j.bench, j.cuda)
    rec["input_sets"] = "fresh" if source.pool is None else len(source.pool)
    rec["variants"] = sorted({source.variants[r].label for r in loop.seeds})
    if cal is not None:
        rec["clock"] = clock_samples(loop, cal)
    else:
        res["notes"].append("timing: no calibration (--no-timing for the baselines?): the runner's "
                            "times are reported, unchecked")
    res["timing"] = rec
    res["time_basis"] = rec["time_basis"]
    _timing_claims(j, loop)
    _processes(j, "timing", False)
    # The sampled outputs, checked afterwards: the runner was idle and the slot no longer needed.
    j.drop_slot()
    j.ask({"op": "release"})
    checked = _pick_checked([source.variants[r] for r in loop.seeds])
    t0 = time.perf_counter()
    failures = []
    for k in checked:
        r = loop.seeds[k]
        vals = source.load(r)
        j.empty_cache()  # the drawn copy's block: the float64 reference needs the room
        ref = j.reference(j.shared.as_inputs(vals))
        flat_ref = ref.reshape(-1)
        max_ref = _finite_absmax(torch, flat_ref)
        want = flat_ref[idx]
        del flat_ref, ref
        j.empty_cache()
        why = sampled(torch, loop.samples[k], want, max_ref, j.thresholds)
        if why:
            failures.append(f"repetition {k + 1} of {len(loop.seeds)} ({source.variants[r].label}): {why}")
    rec["checked_reps"] = len(checked)
    parts["checked_outputs"] = round(time.perf_counter() - t0, 3)
    passed = not failures
    add(j.checks, "timing", "timed_outputs", len(failures), 0, passed,
        f"{len(checked)} timed repetitions, chosen at random after the run (every input "
        f"distribution among them), matched their float64 references at {idx.numel()} sampled "
        f"elements each" if passed else failures[0],
        f"timed_outputs: {failures[0]} (stale, cached, skipped or late work?)" if failures else None)
    used, value = _speedup(baselines, rec["median_us"])
    res["baseline_used"], res["speedup"] = used, value
    if rec["median_us"] is not None and rec["median_us"] <= 0:
        res["notes"].append("timing: the candidate's median is below the judge's resolution; no speedup "
                            "is claimed")
    t0 = time.perf_counter()
    _roofline_inputs(j, res)
    parts["roofline_inputs"] = round(time.perf_counter() - t0, 3)


def _finite_absmax(torch, flat, chunk=1 << 24):
    """max|x| over the finite elements, a chunk at a time (no mask or copy of a 12 GB reference)."""
    best = 0.0
    for s in range(0, flat.numel(), chunk):
        c = flat[s:s + chunk]
        c = torch.where(torch.isfinite(c), c.abs(), torch.zeros((), dtype=c.dtype, device=c.device))
        best = max(best, float(c.max().item())) if c.numel() else best
    return best


def _speedup(baselines, candidate_us):
    usable = [b for b in (baselines or []) if b["us"] and b["us"] > 0 and not math.isnan(b["us"])]
    if not usable or not candidate_us or candidate_us <= 0:
        return None, 0.0
    best = min(usable, key=lambda b: b["us"])
    return {"kind": best["kind"], "us": best["us"]}, best["us"] / candidate_us


def _roofline_inputs(j, res):
    """What the controller's roofline floor needs (verdictpolicy.h rooflineFloor): the bytes a
    correct kernel must move (every input the Model reads whole, roofline.py, and the output
    beyond what L2 holds), the FLOPs it must do (the reference's matrix products and convolutions
    as PyTorch's FlopCounterMode counts them, and one per element a reduction reduces), the
    measured copy bandwidth, the arch and the dtype."""
    torch = j.torch
    if not j.cuda:
        return
    props = torch.cuda.get_device_properties(j.device)
    l2 = int(getattr(props, "L2_cache_size", 0) or 0)
    out_bytes = float(max(0, j.out_bytes - l2))
    read = _must_read(j)
    flops = _reference_flops(j) + (read[1] if read else 0.0)
    out = {"minimal_bytes": out_bytes + (read[0] if read else 0.0), "flops": flops,
           "copy_bandwidth_gbs": _copy_bandwidth(torch, j.device),
           "arch": f"sm_{props.major}{props.minor}", "dtype": j.args.precision,
           "input_bytes_read": read[0] if read else None, "output_bytes": out_bytes,
           "note": "bytes: every input the Model reads whole (roofline.py) and the output beyond "
                   "what L2 holds; FLOPs: the reference's matrix products and convolutions as "
                   "PyTorch's counter counts them, and one per element reduced"}
    if read is None:
        out["note"] += "; inputs not counted (this PyTorch has no dispatch modes)"
    res["roofline_inputs"] = out


def _must_read(j):
    inputs = list(j.shared.views)
    if any(v is None for v in inputs):
        return None  # plain values are drawn per repetition; the call cannot be replayed here
    from .roofline import must_read
    try:
        got = must_read(j.torch, j.kb_model, inputs)
        synchronize(j.torch, j.device)
        return got
    except Exception as e:
        j.notes.append(f"roofline: the bytes the Model reads were not counted ({describe(e)})")
        return None


@gpulock.exclusive
def _copy_bandwidth(torch, device):
    """Bytes read + written per second of a 256 MiB device copy, the fastest of ten: a floor must
    be what the memory can do. Alone on the GPU, as a timed loop is: beside other jobs' work it
    read 2.48 TB/s on an H100 where an honest 19_ReLU streamed 3.0 TB/s, and put it "below the
    floor" (docs/measurements/2026-12-07-verdicts-under-load.md)."""
    n = 256 << 20
    a = torch.empty(n, dtype=torch.uint8, device=device)
    b = torch.empty(n, dtype=torch.uint8, device=device)
    a.fill_(1)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ms = []
    for i in range(12):
        s.record()
        b.copy_(a)
        e.record()
        e.synchronize()
        if i >= 2:
            ms.append(s.elapsed_time(e))
    del a, b
    torch.cuda.empty_cache()
    return 2.0 * n / (min(ms) * 1e-3) / 1e9


def _reference_flops(j):
    """FLOPs of one call of the precision Model on the inputs now in the shared regions, counted
    by PyTorch's FlopCounterMode (matrix products and convolutions; 0 for the rest): a lower
    bound of the work, so the floor it gives stays a floor. Without it (PyTorch < 2.1): 0."""
    torch = j.torch
    inputs = list(j.shared.views)
    if any(v is None for v in inputs):
        return 0.0  # plain values are drawn per repetition; the call cannot be replayed here
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return 0.0
    try:
        with torch.no_grad():
            with FlopCounterMode(display=False) as counter:
                j.kb_model(*inputs)
        synchronize(torch, j.device)
        return float(counter.get_total_flops())
    except Exception as e:
        j.notes.append(f"roofline: FLOPs of the reference not counted ({describe(e)})")
        return 0.0


# ---- the kernel census (a claim) ----------------------------------------------------------------
def _census(j, res, cache_in):
    args = j.args
    key = resultcache.census_key(args)
    cached = resultcache.lookup(cache_in, "census", key) if key and not args.fresh else None
    if cached:
        census = cached["value"]
        res["candidate_kernels_reused"] = resultcache.reused(cached)
    else:
        try:
            reply = j.ask({"op": "census", "candidate": os.path.abspath(args.candidate), "values": []})
        except (channel.Silent, channel.RunnerGone, channel.ProtocolError) as e:
            res["notes"].append(f"profiler: the runner did not answer ({e})")
            return
        if reply.get("op") != "census":
            res["notes"].append(f"profiler failed: {reply.get('error')}")
            return
        from . import profiling
        counts = reply.get("kernels") if isinstance(reply.get("kernels"), dict) else {}
        own = [str(o) for o in (reply.get("own") or []) if isinstance(o, str)]
        ks, fallback, note = profiling.summarize({str(k): int(v) for k, v in counts.items()
                                                  if isinstance(v, int)}, own)
        census = {"candidate_kernels": ks, "library_fallback": fallback, "own_kernel_names": own, "note": note}
        if key:
            res["cache_store"].append(resultcache.to_store("census", key, census))
    res["candidate_kernels"] = census["candidate_kernels"]
    res["library_fallback"] = census["library_fallback"]
    res["own_kernel_names"] = census["own_kernel_names"]
    if census.get("note"):
        res["notes"].append(census["note"] + " (the runner's own account)")
    if not census["candidate_kernels"]:
        res["flags"].append("no_gpu_kernel")


def oom_line(text, torch=None, device=None):
    """"out of GPU memory: N GiB needed, M GiB free", from what PyTorch said (the free memory at
    the moment it failed), else with the driver's free memory now."""
    import re
    m = re.search(r"Tried to allocate ([0-9.]+ [KMGT]i?B)", text)
    need = m.group(1) if m else "more than was free"
    f = re.search(r"of which ([0-9.]+ [KMGT]i?B) is free", text)
    free_txt = f.group(1) if f else "unknown"
    if not f and torch is not None:
        try:
            if device is not None and device.type == "cuda":
                free_txt = f"{torch.cuda.mem_get_info(device)[0] / (1 << 30):.2f} GiB"
        except Exception:
            pass
    return f"out of GPU memory: {need} needed, {free_txt} free"


def _oom_line(torch, device, e):
    return oom_line(str(e), torch, device) + f" ({describe(e)[:300]})"


# ---- the verdict ----------------------------------------------------------------------------------
def _is_nan(v):
    return isinstance(v, float) and math.isnan(v)


def _worst_check(cs):
    def badness(c):
        v = c["value"]
        if v is None or _is_nan(v):
            return math.inf
        return -v if c["name"] == "written_fraction" else v
    return max(cs, key=badness)


def _aggregate(j, res):
    groups = {}
    for c in j.checks:
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
    x1 = [r for r in res["runs"] if r["scale"] == 1 and r.get("variant", "scaled") == "scaled"]
    scale1 = [r for r in x1 if r.get("zeros_pass_kernelbench") is not None]
    pool = scale1 or [r for r in res["runs"] if r.get("zeros_pass_kernelbench") is not None]
    res["degenerate_reference"] = any(r["zeros_pass_kernelbench"] for r in pool) if pool else None
    measured = [r for r in runs if r.get("written_count") is not None]
    canaries = [r["canary_bytes_changed"] for r in res["runs"] if r.get("canary_bytes_changed") is not None]
    res["metrics"] = None if not runs else {
        "rel_frobenius": worst([r["rel_frobenius"] for r in runs]),
        "norm_max_error": worst([r["norm_max_error"] for r in runs]),
        "max_abs_reference": worst([r["max_abs_reference"] for r in runs], larger_is_worse=False),
        "total_count": runs[-1].get("total_count"),
        "written_count": min(r["written_count"] for r in measured) if measured else None,
        "written_fraction": min(r["written_fraction"] for r in measured) if measured else None,
        "non_finite": worst([r["non_finite"] for r in runs]),
        "canary_bytes_changed": max(canaries) if canaries else 0,
        "inputs_unchanged": all(r["inputs_unchanged"] is not False for r in res["runs"]),
        # At scale x1 (the problem's own inputs, what KernelBench sees) when there are such runs.
        "kernelbench_allclose": all(bool(r["kernelbench_allclose"])
                                    for r in ([r for r in runs if r in x1] or runs)),
        "zeros_pass_kernelbench": res["degenerate_reference"],
        "invariants": [c for c in checks if c["name"].startswith("invariant:")],
    }
