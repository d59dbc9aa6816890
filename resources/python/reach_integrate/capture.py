"""One profiled run of a workload for `reach-cli profile` (issue 41, item 3; docs/capture.md):

    python3 -m reach_integrate.capture --device cuda|cpu --warmup K --steps N
        --trace TRACE.json --report REPORT.json -- WORKLOAD.py ARGS...

Runs WORKLOAD.py as __main__ with ARGS under the PyTorch profiler, recorded as extraction needs
it: CPU and CUDA activities, shapes recorded (record_shapes), so every kernel is linked to the
operator call that launched it and its arguments. Steps are marked as integrate marks them:
reach_step() or the workload's own profiler's prof.step() (the workload's profiler stands aside:
one Kineto session at a time); a workload that marks none is stepped by its optimizer's steps
where it has one (torch >= 2.0's global optimizer hook); after K warm-up steps N steps are
profiled. A workload with no step at all is profiled whole, from its start to its end.

The profiler runs from the start (the whole-run recording, in case no step comes); at the end of
the warm-up it is restarted, so the trace holds the N steps only. REPORT.json says how the steps
were marked, how many, what was profiled, and the error if any.
Exit status: 0 done, 1 the workload failed, 2 bad input."""

import argparse
import json
import os
import sys

from . import steps


def _write(report, path):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    os.replace(tmp, path)


class Marker:
    """Which steps count: the explicit ones (reach_step, prof.step) when the workload has any,
    else its optimizer's. An explicit marker seen during the warm-up restarts the count from it
    (an optimizer step may have come first in the same iteration)."""

    def __init__(self, session):
        self.session = session
        self.kind = "none"

    def explicit(self, kind):
        if self.kind not in ("reach_step", "prof.step"):
            if not self.session.profiling and self.session._t is None:
                self.session.count = 0
            self.kind = kind
        self.session.step()

    def optimizer(self):
        if self.kind in ("none", "optimizer"):
            self.kind = "optimizer"
            self.session.step()


def main(argv):
    if "--" not in argv:
        print("usage: python3 -m reach_integrate.capture --trace T --report R ... -- WORKLOAD.py "
              "ARGS", file=sys.stderr)
        return 2
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="reach_integrate.capture")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--report", required=True)
    a = ap.parse_args(argv[:cut])
    workload = argv[cut + 1:]
    report = {"device": a.device, "warmup": a.warmup, "steps": a.steps, "workload": workload,
              "marker": "none", "steps_marked": 0, "profiled": None, "profiled_steps": 0,
              "wall_us": [], "error": None}

    def fail(status, error):
        report["error"] = error
        _write(report, a.report)
        print(f"reach_integrate.capture: {error}", file=sys.stderr)
        sys.exit(status)

    if not workload:
        fail(2, "no workload script after --")
    import torch

    report["torch"] = torch.__version__
    if a.device == "cuda" and not torch.cuda.is_available():
        fail(2, "--device cuda: this PyTorch sees no CUDA device (--device cpu profiles the CPU)")
    real_profile = torch.profiler.profile
    activities = [torch.profiler.ProfilerActivity.CPU]
    if a.device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    state = {"prof": None, "done": False}

    def new_profiler():
        p = real_profile(activities=activities, record_shapes=True)
        p.start()
        return p

    def on_start():
        # The end of the warm-up: the whole-run recording so far is dropped, the steps' starts.
        state["prof"].stop()
        state["prof"] = new_profiler()

    def on_step():
        state["prof"].step()

    def export(kind):
        state["prof"].stop()
        state["prof"].export_chrome_trace(a.trace)
        report["profiled"] = kind
        report["recording"] = _recording(state["prof"])

    # The last step ends the run (steps.Finished); the profiler stops once that has unwound, out
    # of the optimizer step or record_function range it was raised in: PyTorch 1.13 crashed
    # reading events of a profiler stopped inside an open range.
    session = steps.Session(torch, a.device, a.warmup, a.steps, on_start, on_step,
                            lambda: state.update(done=True))
    marker = Marker(session)
    unhook = _optimizer_steps(torch, marker.optimizer)
    steps.install(_Explicit(marker))
    torch.profiler.profile = _Shim(marker)
    state["prof"] = new_profiler()
    try:
        status, error = steps.run_workload(
            workload, report, before=session.begin if a.warmup == 0 else None)
    finally:
        torch.profiler.profile = real_profile
        steps.install(None)
        unhook()
    report["marker"] = marker.kind
    report["steps_marked"] = session.count
    report["wall_us"] = session.wall_us
    report["profiled_steps"] = len(session.wall_us)
    if status == 0:
        session.sync()
        # Fewer steps than asked: what was recorded is kept (the steps after the warm-up, or the
        # whole run when the warm-up never ended).
        export("steps" if state.get("done") else "partial" if session.profiling else "whole")
    if error:
        fail(status, error)
    report["trace"] = a.trace
    _write(report, a.report)
    return 0


def _recording(prof):
    """What the recording can serve, from the profiler's own events (a CPU-only trace of PyTorch
    1.13 is exported in a format without shapes): the ATen operator calls, those with recorded
    input shapes, and the foreach operators (an optimizer's multi-tensor step) whose tensor lists
    were recorded empty, which extraction cannot make problems of."""
    calls = shaped = 0
    foreach = {}
    for e in prof.events():
        name = getattr(e, "name", "")
        if not name.startswith("aten::"):
            continue
        calls += 1
        shapes = getattr(e, "input_shapes", None) or []
        if any(s for s in shapes):
            shaped += 1
        if name.startswith("aten::_foreach_") and not (shapes and shapes[0]):
            foreach[name] = foreach.get(name, 0) + 1
    return {"operator_calls": calls, "with_shapes": shaped,
            "foreach_lists_unrecorded": [{"operator": k, "calls": v}
                                         for k, v in sorted(foreach.items())]}


def _optimizer_steps(torch, callback):
    """Calls `callback` after every optimizer step; returns what removes the hook. Each optimizer
    class's step is wrapped once an instance is made (Optimizer.__init__), outside the profiling
    range PyTorch wraps it in ("Optimizer.step#SGD.step"): a step boundary restarts the profiler,
    and a profiler restarted inside an open range crashed PyTorch 1.13 when its events were read
    (its global post-step hook, 2.0's, runs inside that range)."""
    import functools

    optimizer_cls = torch.optim.Optimizer
    original_init = optimizer_cls.__init__
    patched = []

    @functools.wraps(original_init)
    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        cls = type(self)
        step = cls.step
        if getattr(step, "_reach_marks", False):
            return

        @functools.wraps(step)  # keeps PyTorch's "hooked" mark: it does not wrap it again
        def marked(*args, _inner=step, **kwargs):
            out = _inner(*args, **kwargs)
            callback()
            return out

        marked._reach_marks = True
        patched.append((cls, cls.__dict__.get("step")))
        cls.step = marked

    optimizer_cls.__init__ = init

    def remove():
        optimizer_cls.__init__ = original_init
        for cls, own in reversed(patched):
            if own is None:
                del cls.step
            else:
                cls.step = own

    return remove


class _Explicit:
    """reach_step(): steps.install's session, marking an explicit step."""

    def __init__(self, marker):
        self.marker = marker

    def step(self):
        self.marker.explicit("reach_step")


class _Shim:
    """Stands in for torch.profiler.profile: the workload's own profiler would fight Reach's (one
    Kineto session at a time), so its step() marks a step and everything else does nothing."""

    def __init__(self, marker):
        self.marker = marker

    def __call__(self, *args, **kwargs):
        return _ShimProfiler(self.marker)


class _ShimProfiler(steps.ProfilerShim):
    def __init__(self, marker):
        super().__init__()
        self.marker = marker

    def step(self):
        self.marker.explicit("prof.step")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
