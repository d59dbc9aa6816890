"""Step boundaries: the warm-up steps, the wall-clock steps, the profiled ones, and the end.

The run's driver (run.py) installs a Session; the workload calls reach_step() after each step.
After the warm-up (where substituted calls are checked) come the wall-clock steps, measured with
no profiler running, since the profiler's cost per recorded operator falls on the host and the
host is what a workload's wall clock follows; then the profiled steps, whose trace gives the GPU
time. At every boundary the device is synchronized (the steps are measured whole, not
overlapped) and the wall clock read; after the last profiled step the run ends with Finished, a
BaseException a workload's `except Exception` does not swallow."""

import os
import runpy
import sys
import time
import traceback

_session = None


class Finished(BaseException):
    """The profiled steps are done: the workload's remaining code does not run."""


def install(session):
    global _session
    _session = session


def reach_step():
    """Marks the end of one step of the workload (a no-op outside reach-cli integrate)."""
    if _session is not None:
        _session.step()


class Session:
    def __init__(self, torch, device, warmup, steps, on_start, on_step, on_finish, wall_steps=0):
        self.torch = torch
        self.device = device
        self.warmup = warmup
        self.steps = steps
        self.wall_steps = wall_steps
        self.count = 0
        self.wall_us = []  # the profiled steps
        self.wall_unprofiled_us = []  # the wall-clock steps
        self.inference_mode_steps = 0
        self._t = None
        self.profiling = False
        self.finished = False
        self.on_phase = None  # called with the new phase's name (the native overrides read it)
        self._on_start, self._on_step, self._on_finish = on_start, on_step, on_finish

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def begin(self):
        if self.warmup == 0:
            self._after_warmup()

    def _after_warmup(self):
        if self.wall_steps > 0:
            self.sync()
            self._phase_changed("wall")
            self._t = time.perf_counter()
        else:
            self._start()

    def _phase_changed(self, name):
        if self.on_phase is not None:
            self.on_phase(name)

    def _start(self):
        self.sync()
        self._on_start()
        self.profiling = True
        self._phase_changed("profiled")
        self._t = time.perf_counter()

    def phase(self):
        """"warmup", "wall" (measured, no profiler) or "profiled"."""
        if self._t is None:
            return "warmup"
        return "profiled" if self.profiling else "wall"

    def measuring(self):
        return self.phase() != "warmup"

    def step(self):
        if self.finished:  # a workload that swallowed Finished: nothing more is measured
            raise Finished()
        if getattr(self.torch, "is_inference_mode_enabled", lambda: False)():
            self.inference_mode_steps += 1
        self.count += 1
        if self._t is None:
            if self.count >= self.warmup:
                self._after_warmup()
            return
        self.sync()
        now = time.perf_counter()
        (self.wall_us if self.profiling else self.wall_unprofiled_us).append((now - self._t) * 1e6)
        self._t = now
        if not self.profiling:
            if len(self.wall_unprofiled_us) >= self.wall_steps:
                self._start()
            return
        self._on_step()
        if len(self.wall_us) >= self.steps:
            self.finished = True
            self._on_finish()
            raise Finished()


class ProfilerShim:
    """Stands in for torch.profiler.profile inside an integration run: the workload's own
    profiler would fight integrate's (one Kineto session at a time), so its step() marks a step
    and everything else does nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def start(self):
        pass

    def stop(self):
        pass

    def step(self):
        reach_step()

    def export_chrome_trace(self, path):
        pass

    def key_averages(self, *args, **kwargs):
        return []


def run_workload(workload, report, before=None, data_says_no=()):
    """Runs workload[0] as __main__ with workload[1:] as its arguments (its folder first on the
    path), as integrate's and profile's drivers do; `before` is called just before it starts.
    Returns (status, error): (0, None) when it ended or the steps did (Finished); (1, why) when it
    exited non-zero or raised (the traceback's tail in report), or raised one of `data_says_no`
    (a substituted call that disagreed: its message is the why)."""
    script = os.path.abspath(workload[0])
    sys.argv = [script] + list(workload[1:])
    sys.path.insert(0, os.path.dirname(script))
    try:
        if before is not None:
            before()
        runpy.run_path(script, run_name="__main__")
    except Finished:
        pass
    except data_says_no as e:
        return 1, str(e)
    except SystemExit as e:
        if e.code not in (None, 0):
            return 1, f"the workload exited with status {e.code}"
    except BaseException as e:
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        report["traceback_tail"] = "".join(tb)[-4000:]
        return 1, f"the workload raised {type(e).__name__}: {e}"
    return 0, None
