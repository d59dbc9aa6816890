"""Dispatch, exit status and the one JSON document (docs/kernelbench.md).

Exit 0: the job ran and the JSON holds the answer, whatever the verdict. Exit 2: bad input from the
user, one line `FILE: line N: what was expected` on stderr and `{"error": <that line>}` on stdout.
Exit 3: a bug in the worker, one line on stderr, the traceback in the JSON's `log`.
"""

import sys
import time
import traceback

from . import cli, environment
from .capture import Console
from .errors import UserError
from .loading import describe, load_problem
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


def main(argv, worker_dir):
    started = time.perf_counter()
    console = Console()
    mode = None
    phases = {}
    try:
        quiet = console.quiet()
        with quiet:
            args = cli.parse(argv)
            mode = args.command
            if mode == "probe":
                result = environment.probe()
            else:
                environment.set_cache_dir(args.cache_dir, args.candidate)
                t0 = time.perf_counter()
                torch = environment.import_torch()
                phases["import_torch"] = round(time.perf_counter() - t0, 3)
                if torch is None:
                    raise UserError(f"{sys.executable}: no PyTorch in this Python (import torch failed)")
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
        if mode == "probe":
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
                    reachverdict.run(torch, args, problem, prep, device, res)
        res["versions"] = environment.versions(torch)  # Triton's version once a candidate imported it
        # Where the worker's seconds went (startup, checks, timing, baselines), for the record.
        res.setdefault("phase_seconds", {}).update(phases)
        res["phase_seconds"]["total"] = round(time.perf_counter() - started, 3)
        tb = res.pop("log_traceback", None)
        res["log"] = console.log_text() + (("\n" + tb) if tb else "")
        console.emit(dumps(res))
        return 0
    except cli.HelpRequested as h:
        console.emit(dumps({"help": h.text}))
        return 0
    except UserError as e:
        console.error_line(e.line)
        out = {"error": e.line, "mode": mode, "log": console.log_text()}
        if mode == "reach":
            out["verdict"] = "error"
        console.emit(dumps(out))
        return 2
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        line = f"{cli.PROG}: internal error: {describe(e)}"
        console.error_line(line)
        tail = traceback.format_exc()[-8000:]
        console.emit(dumps({"error": line, "mode": mode, "log": (console.log_text() + "\n" + tail).strip()}))
        return 3
