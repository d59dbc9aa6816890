"""Step boundaries: the warm-up steps, the profiled ones, and the end of the run.

The run's driver (run.py) installs a Session; the workload calls reach_step() after each step.
At every boundary the device is synchronized (the steps are measured whole, not overlapped), the
wall clock read, and after the last profiled step the run ends with Finished, a BaseException a
workload's `except Exception` does not swallow."""

import time

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
    def __init__(self, torch, device, warmup, steps, on_start, on_step, on_finish):
        self.torch = torch
        self.device = device
        self.warmup = warmup
        self.steps = steps
        self.count = 0
        self.wall_us = []
        self.inference_mode_steps = 0
        self._t = None
        self.finished = False
        self._on_start, self._on_step, self._on_finish = on_start, on_step, on_finish

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def begin(self):
        if self.warmup == 0:
            self._start()

    def _start(self):
        self.sync()
        self._on_start()
        self._t = time.perf_counter()

    def measuring(self):
        return self.count >= self.warmup and self._t is not None

    def step(self):
        if self.finished:  # a workload that swallowed Finished: nothing more is measured
            raise Finished()
        if getattr(self.torch, "is_inference_mode_enabled", lambda: False)():
            self.inference_mode_steps += 1
        self.count += 1
        if self.count < self.warmup:
            return
        if self.count == self.warmup and self._t is None:
            self._start()
            return
        self.sync()
        now = time.perf_counter()
        self.wall_us.append((now - self._t) * 1e6)
        self._t = now
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
