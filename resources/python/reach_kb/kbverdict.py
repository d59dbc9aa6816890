"""KernelBench's verdict, reproduced: `eval_kernel_against_ref` of KernelBench 423217d (2026-03-05).

Facts read in src/kernelbench/eval.py (own implementation here, nothing copied):
- set_seed(s) = torch.manual_seed(s) + torch.cuda.manual_seed(s). With seed 42: set_seed, then
  get_init_inputs(); EVERY tensor in them is cast to the precision (integers too) and moved;
  set_seed again, then Model(*init_inputs) under no_grad; the candidate is loaded; set_seed again,
  then ModelNew(*init_inputs); both modules `.to(device, dtype=precision)`.
- A RuntimeError while building ModelNew: compiled, not correct ("runtime_error"). Any other
  exception escapes eval_kernel_against_ref; its caller (scripts/eval_from_generations.py) records
  it as compiled=False ("other_error"), which is what is reported here.
- Trials: torch.manual_seed(seed), then one `torch.randint(0, 2**32 - 1, (1,))` per trial gives the
  trial seeds. Per trial: set_seed(trial seed), get_inputs(), cast every tensor; the reference runs
  first, then ModelNew on the SAME input objects; shape mismatch ends the check at once; then
  `torch.allclose(ref_out, new_out, atol=tol, rtol=tol)` (so |ref - new| <= tol + tol * |new|,
  NaN never close, dtypes must match or it raises); an exception ends the check (runtime_error).
  max/avg |ref - new| are recorded for FAILING trials only, formatted "%.6f".
- tol: resources/oracle/thresholds.json, kernelbench_tolerance: 1e-4 fp32, 1e-2 fp16/bf16
  (get_tolerance_for_precision); before 2025-11-04 (2c3dbda) it was
  1e-2 for everything: `--tolerance 1e-2` reproduces that.
- Timing only when correct: set_seed(seed), get_inputs() again, kbtiming's cuda-event loop, runtime
  = mean (ms). Then the reference is timed the same way and `excessive_speedup` is set when
  reference / candidate > 10.
"""

import os
import traceback

from . import KERNELBENCH_REPRODUCED, gpulock, gpumemory, kbtiming, procwatch
from .environment import set_seed, synchronize
from .errors import CandidateLoadError, UserError
from .loading import describe, load_candidate
from .tensors import dtype_of, kb_cast
from .thresholds import kernelbench_tolerance

EXCESSIVE_SPEEDUP = 10.0


def skeleton(args):
    return {
        "mode": "kernelbench",
        "reproduces": KERNELBENCH_REPRODUCED,
        "compiled": False,
        "correctness": False,
        "correctness_trials": None,
        "trials_passed": 0,
        "trials_total": args.trials,
        "max_difference": [],
        "avg_difference": [],
        "tolerance": args.tolerance if args.tolerance else kernelbench_tolerance(args.precision),
        "precision": args.precision,
        "runtime_ms": -1.0,
        "runtime_stats": {},
        "ref_runtime_ms": -1.0,
        "ref_runtime_stats": {},
        "timing_method": None,
        "excessive_speedup": None,
        "error_kind": None,
        "error": None,
        "backend": None,
        "seed": args.seed,
        "trial_seeds": [],
        "trials": [],
        "metadata": {},
        "notes": [],
        "log": "",
        "versions": {},
        "device": {},
    }


def _runtime_error(res, e, where=None):
    res["error_kind"] = "runtime_error"
    text = describe(e)
    res["error"] = f"{where}: {text}" if where else text
    md = res["metadata"]
    # KernelBench truncates the message to 200 characters and keeps the traceback beside it.
    msg = str(e)
    md["runtime_error"] = msg if len(msg) <= 200 else msg[:197] + "..."
    md["runtime_error_name"] = f"{type(e).__module__}.{type(e).__name__}"
    md["runtime_error_traceback"] = traceback.format_exc()


class Prepared:
    """What KernelBench does before the candidate is loaded (problem code only: errors exit 2)."""

    def __init__(self, torch, args, problem, device):
        self.dtype = dtype_of(args.precision)
        set_seed(torch, args.seed)
        raw = problem.call("get_init_inputs()", problem.get_init_inputs)
        self.init_inputs = [kb_cast(x, device, self.dtype) for x in raw]
        with torch.no_grad():
            set_seed(torch, args.seed)
            self.model = problem.call("Model(*get_init_inputs())", problem.Model, *self.init_inputs)


def run(torch, args, problem, prepared, device, res):
    # Beside other jobs on this GPU, start only when this check's memory fits (gpumemory.py).
    booking = gpumemory.book(torch, device, problem, prepared.dtype, prepared.init_inputs,
                             "kernelbench", res.setdefault("notes", []))
    try:
        if booking is not None:
            res["memory"] = booking.record(torch.cuda.mem_get_info(device)[1])
        return _run_booked(torch, args, problem, prepared, device, res)
    finally:
        if booking is not None:
            booking.release()


def _run_booked(torch, args, problem, prepared, device, res):
    gpulock.hold_shared()  # other verifiers on this GPU may overlap everything but timing
    dtype = prepared.dtype
    tol = res["tolerance"]
    md = res["metadata"]
    if device.type == "cuda":
        md["hardware"] = torch.cuda.get_device_name(device=device)
    md["device"] = str(device)

    os.environ["TORCH_USE_CUDA_DSA"] = "1"  # KernelBench sets it before loading the candidate
    # The candidate runs in this process (that is what KernelBench does): it keeps no capability,
    # so even run as root it cannot reach reach-verify's pipes through /proc (procwatch.py).
    for n in procwatch.drop_privileges():
        res["notes"].append(n)
    try:
        cand = load_candidate(args.candidate, problem, "kernelbench", args.backend)
        synchronize(torch, device)
    except CandidateLoadError as e:
        res["error_kind"] = "compilation_error"
        res["error"] = e.line
        res["compile_log"] = e.log
        md["compilation_error_name"] = (f"{type(e.exc).__module__}.{type(e.exc).__name__}"
                                        if e.exc is not None else "SyntaxError")
        md["compilation_error"] = e.line
        text = str(e.exc) if e.exc is not None else ""
        if not isinstance(e.exc, SyntaxError) and ("lock" in text or "No such file or directory" in text):
            res["notes"].append("KernelBench returns None for this error (it reads it as a lock-file "
                                "race and asks for a retry); reported here as a compilation failure")
        return res
    res["backend"] = cand.backend
    try:
        return _run_loaded(torch, args, problem, prepared, device, res, cand, dtype, tol)
    finally:
        cand.cleanup()


def _run_loaded(torch, args, problem, prepared, device, res, cand, dtype, tol):
    md = res["metadata"]
    try:
        with torch.no_grad():
            set_seed(torch, args.seed)
            custom = cand.ModelNew(*prepared.init_inputs)
            assert hasattr(custom, "forward"), "ModelNew has no forward"
            prepared.model = prepared.model.to(device=device, dtype=dtype)
            custom = custom.to(device=device, dtype=dtype)
            synchronize(torch, device)
    except RuntimeError as e:
        res["compiled"] = True
        _runtime_error(res, e, "ModelNew(*get_init_inputs())")
        return res
    except Exception as e:
        # Escapes eval_kernel_against_ref; eval_from_generations records compiled=False.
        res["error_kind"] = "compilation_error"
        res["error"] = f"ModelNew(*get_init_inputs()): {describe(e)}"
        key = "cuda_error" if "CUDA error" in str(e) else "other_error"
        md[key] = f"error: {e}"
        md[key + "_name"] = f"{type(e).__module__}.{type(e).__name__}"
        return res
    res["compiled"] = True

    try:
        _trials(torch, args, problem, prepared.model, custom, device, dtype, tol, res)
    except UserError:
        raise  # sys.exit() or KeyboardInterrupt from the problem: bad input, not a verdict
    except Exception as e:
        # The reference (or get_inputs) raised: KernelBench's outer catch blames the candidate.
        _runtime_error(res, e, "reference Model or get_inputs()")
        res["notes"].append("the exception came from the problem's side; KernelBench still "
                            "records it as the candidate's runtime error")

    if args.no_timing:
        res["notes"].append("timing not measured (--no-timing)")
        return res
    if not res["correctness"]:
        return res
    try:
        res["runtime_stats"], res["runtime_ms"] = _timed(torch, args, problem, custom, device, dtype, res)
    except Exception as e:
        md["error_during_performance"] = describe(e)
        return res
    try:
        res["ref_runtime_stats"], res["ref_runtime_ms"] = _timed(torch, args, problem, prepared.model,
                                                                 device, dtype, res)
        speedup = res["ref_runtime_ms"] / res["runtime_ms"] if res["runtime_ms"] > 0 else 0.0
        res["excessive_speedup"] = speedup > EXCESSIVE_SPEEDUP
        if res["excessive_speedup"]:
            md["excessive_speedup"] = True
    except Exception as e:
        res["notes"].append(f"reference timing failed: {describe(e)}")
    return res


def _timed(torch, args, problem, model, device, dtype, res):
    synchronize(torch, device)
    set_seed(torch, args.seed)
    inputs = [kb_cast(x, device, dtype) for x in _problem_side(problem, problem.get_inputs)]
    model = model.to(device=device, dtype=dtype)
    synchronize(torch, device)
    # Outside no_grad, as in KernelBench (its performance block is not under torch.no_grad()).
    times, method = kbtiming.time_calls(torch, model, inputs, args.perf_trials, device)
    res["timing_method"] = method
    if method == "host_time":
        note = "cpu: KernelBench's cuda-event timing and L2 flush not measured; host clock (its host_time method)"
        if note not in res["notes"]:
            res["notes"].append(note)
    s = kbtiming.stats(times, torch, device)
    return s, s["mean"]


def _trials(torch, args, problem, model, custom, device, dtype, tol, res):
    md = res["metadata"]
    torch.manual_seed(args.seed)
    seeds = [torch.randint(0, 2 ** 32 - 1, (1,)).item() for _ in range(args.trials)]
    res["trial_seeds"] = seeds
    passed = 0
    inputs = output = new = None
    with torch.no_grad():
        for trial, ts in enumerate(seeds):
            # The previous trial's tensors go before this trial's are drawn: KernelBench's own
            # loop rebinds them only after, which holds two trials of a 6 GB problem at once.
            inputs = output = new = None
            set_seed(torch, ts)
            inputs = [kb_cast(x, device, dtype) for x in _problem_side(problem, problem.get_inputs)]
            set_seed(torch, ts)
            model = model.to(device=device, dtype=dtype)
            set_seed(torch, ts)
            custom = custom.to(device=device, dtype=dtype)
            output = _problem_side(problem, model, *inputs)
            synchronize(torch, device)
            record = {"trial": trial, "seed": ts, "passed": False, "max_difference": None,
                      "avg_difference": None}
            res["trials"].append(record)
            try:
                new = custom(*inputs)
                synchronize(torch, device)
                if output.shape != new.shape:
                    md["correctness_issue"] = (f"Output shape mismatch: Expected {output.shape}, "
                                               f"got {new.shape}")
                    md["correctness_issue_name"] = "correctness_issue"
                    res["error_kind"] = "output_shape"
                    res["error"] = (f"output shape mismatch at trial {trial}: expected "
                                    f"{list(output.shape)}, got {list(new.shape)}")
                    res["trials_passed"] = passed
                    return
                ok = _allclose(torch, output, new, tol)
                if ok:
                    passed += 1
                    record["passed"] = True
                    try:  # not computed by KernelBench for a passing trial: never let it fail one
                        _differences(torch, output, new, record)
                    except Exception:
                        pass
                else:
                    _differences(torch, output, new, record)  # as KernelBench: may raise
                    res["max_difference"].append(record["max_difference"])
                    res["avg_difference"].append(record["avg_difference"])
                    md.setdefault("max_difference", []).append(f"{record['max_difference']:.6f}")
                    md.setdefault("avg_difference", []).append(f"{record['avg_difference']:.6f}")
                    md["correctness_issue"] = "Output mismatch"
                    res["error_kind"] = "correctness_issue"
                    res["error"] = f"output mismatch (allclose atol=rtol={tol:g})"
            except BaseException as e:  # SystemExit and KeyboardInterrupt from forward too
                _runtime_error(res, e, f"ModelNew.forward at trial {trial}")
                res["trials_passed"] = passed
                return
    res["trials_passed"] = passed
    res["correctness_trials"] = f"({passed} / {args.trials})"
    md["correctness_trials"] = res["correctness_trials"]
    res["correctness"] = passed == args.trials
    if res["correctness"]:
        res["error_kind"] = None
        res["error"] = None


def _problem_side(problem, fn, *args):
    """Calls problem code as KernelBench does (its exceptions are recorded as the candidate's
    runtime error, one level up), except what would stop KernelBench itself: sys.exit() and
    KeyboardInterrupt from the problem are the problem's fault, bad input (exit 2)."""
    try:
        return fn(*args)
    except (KeyboardInterrupt, SystemExit) as e:
        raise UserError(f"{problem.path}: the problem's code raised {describe(e)}")


ALLCLOSE_CHUNK = 1 << 24


def _allclose(torch, a, b, tol):
    """torch.allclose(a, b, atol=tol, rtol=tol), in chunks for large outputs: an element-wise AND,
    so the answer is the same, without allclose's temporaries of the whole output (three of a
    6 GB output at once). Anything allclose refuses (dtypes, shapes) goes to allclose itself."""
    n = a.numel()
    if a.dtype != b.dtype or a.shape != b.shape or n <= ALLCLOSE_CHUNK or not (a.is_contiguous() and b.is_contiguous()):
        return torch.allclose(a, b, atol=tol, rtol=tol)
    fa, fb = a.reshape(-1), b.reshape(-1)
    for s in range(0, n, ALLCLOSE_CHUNK):
        if not torch.allclose(fa[s:s + ALLCLOSE_CHUNK], fb[s:s + ALLCLOSE_CHUNK], atol=tol, rtol=tol):
            return False
    return True


def _differences(torch, output, new, record):
    diff = torch.abs(output - new)
    record["max_difference"] = float(f"{torch.max(diff).item():.6f}")
    record["avg_difference"] = float(f"{torch.mean(diff).item():.6f}")
