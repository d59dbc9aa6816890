"""Dispatch, exit status and the one JSON document (docs/kernelbench.md).

Exit 0: the job ran and the JSON holds the answer, whatever the verdict. Exit 2: bad input from the
user, one line `FILE: line N: what was expected` on stderr and `{"error": <that line>}` on stdout.
Exit 3: a bug in the worker, one line on stderr, the traceback in the JSON's `log`.
"""

import sys
import time
import traceback

from . import cli, environment, procwatch, resultcache
from .capture import Console
from .errors import UserError
from .loading import describe, load_problem, read_source
from .report import dumps


def _no_gpu(res, mode):
    line = "no CUDA device visible to PyTorch"
    if mode == "reach":
        res["verdict"] = "no_gpu"
        res["reasons"] = [line]
    else:
        res["error_kind"] = "no_gpu"
        res["error"] = line
    return res


def _kernelbench_key(args):
    """KernelBench's verdict is a function of these (fixed seeds, fixed trials) and of the stack."""
    parts = {"problem": resultcache.file_digest(args.problem),
             "candidate": resultcache.file_digest(args.candidate),
             "options": [args.precision, args.device, args.trials, args.perf_trials, args.tolerance,
                         args.seed, args.backend, args.no_timing]}
    if parts["problem"] is None or parts["candidate"] is None:
        return None  # unreadable: the job itself says so
    return resultcache.key("kernelbench", parts)


def _reusable_kernelbench(res):
    # A device that was missing or full is the run's, not the candidate's.
    text = str(res.get("error") or "")
    return res.get("error_kind") != "no_gpu" and "out of memory" not in text


def main(argv, worker_dir):
    started = time.perf_counter()
    console = Console()
    mode = None
    result = None
    phases = {}
    handle = None
    try:
        quiet = console.quiet()
        with quiet:
            args = cli.parse(argv)
            mode = args.command
            cache_in = resultcache.read_entries(getattr(args, "cache_in", None))
            kb_key = _kernelbench_key(args) if mode == "kernelbench" else None
            entry = (resultcache.lookup(cache_in, "kernelbench", kb_key)
                     if kb_key and not args.fresh else None)
            if mode in ("reach", "kernelbench"):
                read_source(args.candidate)  # an unreadable candidate is bad input (exit 2)
            if mode == "probe":
                result = environment.probe()
            elif entry:
                # Answered before PyTorch is imported: a re-verify pays only the interpreter.
                result = entry["value"]
                result["reused"] = resultcache.reused(entry)
                result["phase_seconds"] = {"total": round(time.perf_counter() - started, 3)}
            else:
                if mode == "kernelbench":
                    environment.set_cache_dir(args.cache_dir, args.candidate)
                else:
                    # The judge: nothing of this process may be reached from the runner
                    # (procwatch.py), and whatever the runner leaves behind comes back here.
                    for n in procwatch.protect_self():
                        console.note(n)
                t0 = time.perf_counter()
                torch = environment.import_torch()
                phases["import_torch"] = round(time.perf_counter() - t0, 3)
                if torch is None:
                    raise UserError(f"{sys.executable}: no PyTorch in this Python (import torch failed)")
                if mode == "reach":
                    # What the runner imports at its hello and the judge's FLOP counter pulls
                    # in (Dynamo: 4.4 s on the H200), imported once, here, for both: the runner
                    # is forked with it. Neither touches CUDA. (Already there under the server.)
                    t0 = time.perf_counter()
                    environment.import_runner_modules()
                    phases["import_dynamo"] = round(time.perf_counter() - t0, 3)
                    # Before the problem is loaded and before CUDA is touched: a forked child
                    # cannot use a CUDA context its parent made, and problem code may make one.
                    from . import judge
                    handle = judge.spawn_runner(worker_dir, console.real_err)
                # The verdict modules import torch at module level: only now that it is there.
                from . import kbverdict, reachverdict
                problem = load_problem(args.problem, mode)
                device = environment.job_device(torch, args.device)
                prep = None
                if device is not None:
                    if mode == "kernelbench":
                        prep = kbverdict.Prepared(torch, args, problem, device)
                    else:
                        prep = reachverdict.Prepared(torch, args, problem, worker_dir)
        quiet.replay()
        if mode == "probe" or result is not None:
            console.emit(dumps(result))
            return 0

        res = (kbverdict.skeleton(args) if mode == "kernelbench" else reachverdict.skeleton(args))
        res["versions"] = environment.versions(torch)
        res["device"] = environment.device_record(torch, device)
        if device is None:
            res = _no_gpu(res, mode)
        else:
            with console.tee():
                if mode == "kernelbench":
                    kbverdict.run(torch, args, problem, prep, device, res)
                else:
                    reachverdict.run(torch, args, problem, prep, device, res, handle, cache_in)
                    handle = None  # ended by run
        if handle is not None:
            handle.end()
            handle = None
        res["versions"] = environment.versions(torch)  # Triton's version once a candidate imported it
        # Where the worker's seconds went (startup, checks, timing, baselines), for the record.
        res.setdefault("phase_seconds", {}).update(phases)
        res["phase_seconds"]["total"] = round(time.perf_counter() - started, 3)
        tb = res.pop("log_traceback", None)
        res["log"] = console.log_text() + (("\n" + tb) if tb else "")
        if mode == "kernelbench" and device is not None and kb_key and _reusable_kernelbench(res):
            res["cache_store"] = [resultcache.to_store("kernelbench", kb_key, dict(res))]
        console.emit(dumps(res))
        return 0
    except cli.HelpRequested as h:
        console.emit(dumps({"help": h.text}))
        return 0
    except UserError as e:
        _end(handle)
        console.error_line(e.line)
        out = {"error": e.line, "mode": mode, "log": console.log_text()}
        if mode == "reach":
            out["verdict"] = "error"
        console.emit(dumps(out))
        return 2
    except BaseException as e:
        _end(handle)
        line = f"{cli.PROG}: internal error: {describe(e)}"
        console.error_line(line)
        tail = traceback.format_exc()[-8000:]
        console.emit(dumps({"error": line, "mode": mode, "log": (console.log_text() + "\n" + tail).strip()}))
        return 3


def _end(handle):
    if handle is not None:
        try:
            handle.end()
        except Exception:
            pass
