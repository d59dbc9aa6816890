"""One run of a workload for `reach-cli integrate` (docs/integration.md):

    python3 -m reach_integrate.run --plan PLAN.json --mode asis|substituted|hooks --device cuda|cpu
        --warmup K --wall-steps M --steps N [--host-path native|python] --trace TRACE.json
        --report REPORT.json
        -- WORKLOAD.py ARGS...

Runs WORKLOAD.py as __main__ with ARGS. After K steps (reach_step() calls) M steps are timed
with no profiler running (the wall clock); then the profiler starts (CPU and CUDA activities,
shapes recorded); after N more it stops, the trace is exported and the workload ends. With --mode substituted the plan's verified winners replace their operators
first (substitute.py); with --mode hooks their overrides are installed and every call falls
through (the control that measures the overrides alone); --host-path native puts the overrides
in C++ (native.py). REPORT.json says what happened: each step's wall clock (the device
synchronized at each boundary), the substitutions and fall-throughs, or the error.
Exit status: 0 done, 1 the workload failed or a substituted call disagreed, 2 bad input."""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER_DIR = os.path.dirname(HERE)  # resources/python: reach_kb's thresholds live beside it


def _fail(report, path, status, error):
    report["error"] = error
    _write(report, path)
    print(f"reach_integrate: {error}", file=sys.stderr)
    sys.exit(status)


def _write(report, path):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    os.replace(tmp, path)


def main(argv):
    if "--" not in argv:
        print("usage: python3 -m reach_integrate.run --plan P --mode M ... -- WORKLOAD.py ARGS",
              file=sys.stderr)
        return 2
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="reach_integrate.run")
    ap.add_argument("--plan", required=True)
    ap.add_argument("--mode", choices=("asis", "substituted", "hooks"), required=True)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--wall-steps", type=int, default=0)
    ap.add_argument("--host-path", choices=("native", "python"), default="python")
    ap.add_argument("--trace", required=True)
    ap.add_argument("--report", required=True)
    a = ap.parse_args(argv[:cut])
    workload = argv[cut + 1:]
    report = {"mode": a.mode, "device": a.device, "warmup": a.warmup, "steps": a.steps,
              "workload": workload, "wall_steps": a.wall_steps, "wall_us": [], "wall_unprofiled_us": [], "steps_marked": 0, "error": None}
    if not workload:
        _fail(report, a.report, 2, "no workload script after --")
    try:
        with open(a.plan, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        _fail(report, a.report, 2, f"{a.plan}: cannot read the plan: {e}")

    import torch
    from . import steps
    from .substitute import IntegrateError, Mismatch, NeedsGrad, Substitution
    from reach_kb.errors import UserError

    report["torch"] = torch.__version__
    if a.device == "cuda" and not torch.cuda.is_available():
        _fail(report, a.report, 2, "--device cuda: this PyTorch sees no CUDA device")
    real_profile = torch.profiler.profile
    activities = [torch.profiler.ProfilerActivity.CPU]
    if a.device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    state = {}

    def on_start():
        state["prof"] = real_profile(activities=activities, record_shapes=True)
        state["prof"].start()

    def on_step():
        state["prof"].step()

    def on_finish():
        state["prof"].stop()
        state["prof"].export_chrome_trace(a.trace)
        state["done"] = True

    session = steps.Session(torch, a.device, a.warmup, a.steps, on_start, on_step, on_finish,
                            wall_steps=a.wall_steps)
    sub = None
    if a.mode in ("substituted", "hooks"):
        try:
            sub = Substitution(plan, a.device, WORKER_DIR, session.phase,
                               hooks_only=a.mode == "hooks", host_path=a.host_path)
            session.on_phase = sub.phase_changed
        except (IntegrateError, UserError, OSError) as e:
            _fail(report, a.report, 2, str(e))
        except Exception as e:  # a candidate that does not load: the plan's file, its fault
            _fail(report, a.report, 2, f"loading the winners: {type(e).__name__}: {e}")
    steps.install(session)
    torch.profiler.profile = steps.ProfilerShim
    try:
        status, error = steps.run_workload(workload, report, before=session.begin,
                                           data_says_no=(Mismatch, NeedsGrad))
    finally:
        torch.profiler.profile = real_profile
        steps.install(None)
    if sub is not None and sub.pending is not None:  # a disagreement, whatever became of it
        status, error = 1, str(sub.pending)
        report.pop("traceback_tail", None)
    report["steps_marked"] = session.count
    report["wall_us"] = session.wall_us
    report["wall_unprofiled_us"] = session.wall_unprofiled_us
    report["inference_mode_steps"] = session.inference_mode_steps
    if sub is not None:
        report.update(sub.report())
    if status == 0 and not state.get("done"):
        status = 1
        error = (f"the workload marked {session.count} steps (reach_step() or prof.step()); "
                 f"integrate needs {a.warmup} warm-up + {a.wall_steps} wall-clock + {a.steps} "
                 f"profiled")
    if error:
        _fail(report, a.report, status, error)
    report["trace"] = a.trace
    _write(report, a.report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
