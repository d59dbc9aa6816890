"""KernelBench's timing, reproduced (src/kernelbench/timing.py at 423217d, default "cuda_event").

What it does, read in the source:
- 3 warm-up calls, each followed by a device synchronize; then `torch.cuda.empty_cache()`;
- `num_trials + 1` timed trials, the first discarded; per trial: synchronize, a new event pair,
  the L2 "flush" (a 256 MiB int64 tensor `fill_(42)`, then freed), start event, the call, end
  event, synchronize; elapsed time in ms;
- statistics: mean, std (population), min, max, each rounded to 3 significant digits.
The events sit on the current stream only, so work launched on another stream escapes the window
(KernelBench's own note); that is what its "excessive speedup" flag (reference / candidate > 10)
tries to catch afterwards. On `--device cpu` the same loop runs on the host clock (KernelBench's
"host_time" method), without a flush.
"""

import statistics
import time

from .gpulock import exclusive

WARMUP = 3
DISCARD_FIRST = 1
L2_FLUSH_SHAPE = (32, 1024, 1024)  # int64: 256 MiB


def _clear_l2(torch, device):
    dummy = torch.empty(L2_FLUSH_SHAPE, dtype=torch.int64, device=device)
    dummy.fill_(42)
    del dummy


@exclusive
def time_cuda_event(torch, fn, args, num_trials, device):
    with torch.cuda.device(device):
        for _ in range(WARMUP):
            fn(*args)
            torch.cuda.synchronize(device=device)
        torch.cuda.empty_cache()
        times = []
        for trial in range(num_trials + DISCARD_FIRST):
            torch.cuda.synchronize(device=device)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            _clear_l2(torch, device)
            start.record()
            fn(*args)
            end.record()
            torch.cuda.synchronize(device=device)
            if trial >= DISCARD_FIRST:
                times.append(start.elapsed_time(end))
    return times


def time_host(torch, fn, args, num_trials, device):
    for _ in range(WARMUP):
        fn(*args)
    times = []
    for trial in range(num_trials + DISCARD_FIRST):
        t0 = time.perf_counter()
        fn(*args)
        t1 = time.perf_counter()
        if trial >= DISCARD_FIRST:
            times.append((t1 - t0) * 1000.0)
    return times


def time_calls(torch, fn, args, num_trials, device):
    if device.type == "cuda":
        return time_cuda_event(torch, fn, args, num_trials, device), "cuda_event"
    return time_host(torch, fn, args, num_trials, device), "host_time"


def _sig3(x):
    return float(f"{x:.3g}")


def stats(times, torch=None, device=None):
    s = {
        "mean": _sig3(statistics.fmean(times)),
        "std": _sig3(statistics.pstdev(times)) if len(times) > 1 else 0.0,
        "min": _sig3(min(times)),
        "max": _sig3(max(times)),
        "num_trials": len(times),
    }
    if device is not None and device.type == "cuda":
        s["hardware"] = torch.cuda.get_device_name(device=device)
        s["device"] = str(device)
    return s
