"""Reach's timing of a PyTorch callable: cold L2, fresh values every repetition, two clocks.

Per repetition, outside the timed window: the inputs are overwritten IN PLACE with one of several
pre-drawn input sets (same pointers, new values: a candidate that caches its result by pointer or
by tensor identity returns a stale answer, which the sampled output checks catch), then a buffer of
max(2 x L2, 64 MiB) is zeroed (cold L2, as Triton's do_bench and reach-verify do), with no
synchronize after them: they are still running when the host records the start event and
launches the call, so the launch's host latency is hidden behind them, as in do_bench and the C++
path. Timed: one CUDA event pair on the current stream around the call; then the end event is
waited for (the timed stream is done) and the device is synchronized (every stream is done).
When the device stays busy after the timed stream finished, by more than OFF_STREAM_GAP_US and
OFF_STREAM_TAIL_RATIO of the event time, work ran outside the timed stream (a private stream, as
in KernelBench's adversarial_non_default_stream_kernel): the flag "timing" is raised and the
device-wide time (host clock from the launch to the device-wide synchronize) becomes the honest
median. Python's launch time is not in that tail (the call has returned before it starts), so the
rule holds for kernels of a few microseconds too.
"""

import math
import statistics
import time

from .gpulock import exclusive

FLUSH_MIN_BYTES = 64 << 20
FLUSH_UNKNOWN_L2_BYTES = 256 << 20
# Work outside the timed stream: the device still busy after the timed stream's end event, by more
# than this many microseconds and this share of the event time (a bare synchronize costs ~5 us).
OFF_STREAM_GAP_US = 20.0
OFF_STREAM_TAIL_RATIO = 0.1


def sample_stats(samples):
    """As TimingStats::fromSamples (core/verify/verification.cpp): nearest-rank p10/p90."""
    s = sorted(samples)
    n = len(s)
    if n == 0:
        return {"reps": 0, "median_us": None, "p10_us": None, "p90_us": None, "min_us": None,
                "max_us": None, "mean_us": None}

    def q(p):
        i = int(math.floor(p * (n - 1) + 0.5))
        return s[min(i, n - 1)]

    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"reps": n, "median_us": median, "p10_us": q(0.10), "p90_us": q(0.90),
            "min_us": s[0], "max_us": s[-1], "mean_us": statistics.fmean(s)}


def flush_bytes(l2_bytes):
    if not l2_bytes:
        return FLUSH_UNKNOWN_L2_BYTES
    return max(2 * int(l2_bytes), FLUSH_MIN_BYTES)


class SmClock:
    """SM clock through NVML when pynvml is installed (optional); -1 otherwise."""

    def __init__(self, index, uuid=None):
        self.handle = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.pynvml = pynvml
        except Exception:
            return
        # By UUID first: under CUDA_VISIBLE_DEVICES, PyTorch's index is not NVML's.
        if uuid:
            for u in (uuid if uuid.startswith("GPU-") else "GPU-" + uuid, uuid):
                try:
                    self.handle = pynvml.nvmlDeviceGetHandleByUUID(u)
                    return
                except Exception:
                    pass
        try:
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(int(index or 0))
        except Exception:
            self.handle = None

    @property
    def available(self):
        return self.handle is not None

    def mhz(self):
        if self.handle is None:
            return -1
        try:
            return int(self.pynvml.nvmlDeviceGetClockInfo(self.handle, self.pynvml.NVML_CLOCK_SM))
        except Exception:
            return -1


def is_checked(r, reps, n_sets, check_every):
    return r < n_sets or r % check_every == check_every - 1 or r == reps - 1


@exclusive
def time_reps(torch, fn, live, sets, reps, warmup, device, flush=None, check=None, check_every=10):
    """Times `fn(*live)`. `sets[k]` holds tensors aligned with the tensors of `live`.

    Returns (samples dict, failures): samples has lists event_us (None on CPU), sync_us, launch_us.
    `check(r, k, out)` runs on the first repetition of every set, every `check_every`-th and the
    last (is_checked); it returns a reason string for a failure or None.
    """
    cuda = device.type == "cuda"
    slots = [i for i, x in enumerate(live) if isinstance(x, torch.Tensor)]
    n_sets = len(sets)

    def load(k):
        for i in slots:
            live[i].copy_(sets[k][i])

    def sync():
        if cuda:
            torch.cuda.synchronize(device)

    event_us, sync_us, launch_us, tail_us, failures = [], [], [], [], []
    with torch.no_grad():
        for i in range(warmup):
            load(i % n_sets)
            out = fn(*live)
            sync()
        out = None
        for r in range(reps):
            k = r % n_sets
            load(k)
            if flush is not None:
                flush.zero_()
            # No synchronize here: the input copy and the flush are still running on the GPU
            # while the host records the start event and launches the call, so the launch's host
            # latency is hidden behind them, as in the C++ path and triton's do_bench (a sync here
            # put 30-100 us of Python launch time inside the event window of a Triton kernel).
            if cuda:
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
            t0 = time.perf_counter()
            out = fn(*live)
            t_launch = time.perf_counter()
            if cuda:
                end.record()
                end.synchronize()  # the timed stream is done
                t_stream = time.perf_counter()
                torch.cuda.synchronize(device)  # and so is every stream of the device
            t1 = time.perf_counter()
            if cuda:
                event_us.append(start.elapsed_time(end) * 1000.0)
                tail_us.append((t1 - t_stream) * 1e6)
            sync_us.append((t1 - t0) * 1e6)
            launch_us.append((t_launch - t0) * 1e6)
            # Every set once (a cheat that caches what it saw first is then caught however few the
            # repetitions), then every check_every-th repetition and the last.
            if check is not None and is_checked(r, reps, n_sets, check_every):
                reason = check(r, k, out)
                if reason:
                    failures.append(reason)
            out = None
    return {"event_us": event_us if cuda else None, "sync_us": sync_us, "launch_us": launch_us,
            "tail_us": tail_us if cuda else None}, failures


def summarize(samples, warmup, device, flush_nbytes, clocks=None):
    """The timing record (docs/verifier.md keys) with the honest basis chosen."""
    cuda = device.type == "cuda"
    sync_stats = sample_stats(samples["sync_us"])
    flags, notes = [], []
    if cuda:
        ev_stats = sample_stats(samples["event_us"])
        ev, sy = ev_stats["median_us"], sync_stats["median_us"]
        tail = sample_stats(samples["tail_us"])["median_us"] if samples.get("tail_us") else 0.0
        # Work outside the timed stream: the device stays busy after the timed stream's end event
        # has completed. Python's launch time is not in this tail (the call has returned), so
        # the rule holds for kernels of a few microseconds too.
        if tail > max(OFF_STREAM_GAP_US, OFF_STREAM_TAIL_RATIO * ev):
            basis, chosen = "device_sync", sync_stats
            flags.append("timing")
            notes.append(f"timing: the device stayed busy {tail:.1f} us (median) after the timed "
                         f"stream finished (event median {ev:.1f} us): work ran outside the timed "
                         f"stream; the device-wide time, {sy:.1f} us, is used")
        else:
            basis, chosen = "cuda_events", ev_stats
    else:
        ev_stats = None
        basis, chosen = "host", sync_stats
    t = dict(chosen)
    t.update({
        "warmup": warmup,
        "l2_flushed": bool(cuda and flush_nbytes),
        "l2_flush_bytes": flush_nbytes if cuda else 0,
        "sm_clock_before_mhz": clocks[0] if clocks else -1,
        "sm_clock_after_mhz": clocks[1] if clocks else -1,
        "clock_source": ("nvml" if clocks and clocks[0] >= 0 else "none") if cuda else "host",
        "event_median_us": ev_stats["median_us"] if ev_stats else None,
        "sync_median_us": sync_stats["median_us"],
        "launch_median_us": sample_stats(samples["launch_us"])["median_us"],
        "device_tail_median_us": (sample_stats(samples["tail_us"])["median_us"]
                                  if cuda and samples.get("tail_us") else None),
        "time_basis": basis,
    })
    return t, flags, notes
