"""Timing through the trust boundary: the runner's event times, held against the judge's own clock.

One repetition (CUDA), all of it driven by the judge:
1. fresh inputs into the shared regions (or a pooled set, judgeinputs), the slot filled with the
   pattern, the judge's GPU work finished (synchronize);
2. the judge queues, on its own context, the L2 flush (a buffer of max(2 x L2, 64 MiB) zeroed,
   as triton's do_bench and reach-verify do) followed by the same zeroing repeated until about
   SPACER_US of GPU time is queued: the spacer. The GPU runs one context at a time, so the
   runner's work waits behind it: its host launches (Python, Triton's launcher) are hidden as in
   do_bench, and its kernels start on a cold L2 the judge made cold;
3. the judge reads its clock (t0) and sends `run`; the runner records a start event, calls the
   module, records an end event, copies the output into the slot, synchronizes and answers with
   its event time (a claim);
4. the judge gathers the slot's elements at K secret positions, synchronizes and reads its clock
   again (t2). The runner's GPU work must be complete by then or the sampled elements are wrong.

w = t2 - t0 is the judge's time for the repetition: the spacer, the runner's whole part, the
copy, both synchronizations and the messages. w - e (the gap) does not depend on the candidate
(the same machinery surrounds every callable), so the gap of the problem's own Model, timed the
same way before the candidate was loaded, calibrates it. A runner that reports less than it ran
widens its gap; one that skips the flush or the spacer cannot (they are the judge's). The
controller decides (core/verify/verdictpolicy.h, clock agreement); the judge reports the samples.

On the CPU (tests) there is no flush or spacer, the runner's clock is perf_counter around the
call, and the judge's is perf_counter around the message exchange.
"""

import math
import os
import statistics
import time

from . import channel
from .gpulock import exclusive
from .sharedmem import PATTERN

FLUSH_MIN_BYTES = 64 << 20
FLUSH_UNKNOWN_L2_BYTES = 256 << 20
SPACER_US = 250.0  # GPU work queued ahead of the runner's launch (its host latency hides behind)
SAMPLES_PER_REP = 1 << 16  # output elements gathered from every repetition


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

    def mhz(self):
        if self.handle is None:
            return -1
        try:
            return int(self.pynvml.nvmlDeviceGetClockInfo(self.handle, self.pynvml.NVML_CLOCK_SM))
        except Exception:
            return -1


class Bench:
    """What every timed loop of a job shares: the flush buffer, the spacer, the clock reader."""

    def __init__(self, torch, device, notes):
        self.torch = torch
        self.device = device
        self.cuda = device.type == "cuda"
        self.flush = None
        self.flush_n = 0
        self.spacer_flushes = 0
        self.flush_us = None
        self.clock = None
        if self.cuda:
            props = torch.cuda.get_device_properties(device)
            self.flush_n = flush_bytes(getattr(props, "L2_cache_size", 0))
            self.flush = torch.empty(self.flush_n, dtype=torch.uint8, device=device)
            uuid = getattr(props, "uuid", None)
            self.clock = SmClock(device.index, str(uuid) if uuid is not None else None)
            self.flush_us = self._flush_time()
            self.spacer_flushes = max(1, int(math.ceil(SPACER_US / max(self.flush_us, 1.0))))
        else:
            notes.append("cpu: L2 flush, CUDA events and SM clocks not measured; host clocks "
                         "(perf_counter) in the judge and in the runner")

    def _flush_time(self):
        torch = self.torch
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(5):
            s.record()
            self.flush.zero_()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1000.0)
        return sorted(times)[2]

    def queue_flush_and_spacer(self):
        for _ in range(self.spacer_flushes):
            self.flush.zero_()

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(self.device)


class LoopResult:
    def __init__(self):
        self.w = []  # the judge's time per repetition (us)
        self.e = []  # the runner's claimed time per repetition (us)
        self.samples = None  # [reps, K] gathered output elements (timed repetitions only)
        self.seeds = []  # per timed repetition: what InputSource.load was given
        self.failure = None  # (kind, text) when a repetition broke the loop
        self.replies = []
        self.clocks = (-1, -1)


@exclusive
def run_loop(torch, judge, source, reps, warmup, gather, timeout_s):
    """Runs warmup + reps repetitions of the callable the runner is using. `source.load(r)` puts
    repetition r's inputs in the shared regions and returns its plain values; `gather` is
    (slot_flat, idx) or None. Returns a LoopResult (times of the timed repetitions only)."""
    bench = judge.bench
    res = LoopResult()
    slot_u8 = judge.slot_region.data if judge.slot_region is not None else None
    if gather is not None:
        flat, idx = gather
        res.samples = torch.empty((reps, idx.numel()), dtype=flat.dtype, device=flat.device)
    before = bench.clock.mhz() if bench.clock else -1
    for r in range(warmup + reps):
        values = source.load(r)
        if slot_u8 is not None:
            slot_u8.fill_(PATTERN)
        bench.sync()
        if bench.cuda:
            bench.queue_flush_and_spacer()
        t0 = time.perf_counter()
        try:
            judge.chan.send({"op": "run", "id": r, "values": values})
            reply, _ = judge.chan.recv(timeout=timeout_s)
        except channel.Silent as e:
            res.failure = ("timeout", f"the runner did not answer repetition {r} in time ({e})")
            break
        except (channel.RunnerGone, channel.ProtocolError) as e:
            res.failure = ("crashed", f"the runner broke off at repetition {r}: {e}")
            break
        if reply.get("id") != r:
            # Every answer is for the repetition asked for: a runner that answers ahead (to be
            # "done" before its work is) desynchronizes, and that ends the job.
            res.failure = ("crashed", f"the runner answered {reply.get('id')!r} to repetition {r}")
            break
        timed = r >= warmup
        if gather is not None and timed:
            res.samples[r - warmup].copy_(flat[idx])
        bench.sync()
        t2 = time.perf_counter()
        if reply.get("op") != "ran" or reply.get("error") or not reply.get("copied"):
            res.failure = ("reply", reply)
            break
        e_us = reply.get("e_us")
        if isinstance(e_us, bool) or not isinstance(e_us, (int, float)) or not (0 <= e_us < 1e12):
            res.failure = ("reply", dict(reply, error=f"an event time that is not a time: {e_us!r}"))
            break
        if timed:
            res.w.append((t2 - t0) * 1e6)
            res.e.append(float(e_us))
            res.seeds.append(r)
    after = bench.clock.mhz() if bench.clock else -1
    res.clocks = (before, after)
    return res


def record(loop, warmup, bench):
    """docs/verifier.md's timing keys from the runner's times, with the judge's clock beside them."""
    t = sample_stats(loop.e)
    t.update({
        "warmup": warmup,
        "l2_flushed": bool(bench.cuda),
        "l2_flush_bytes": bench.flush_n if bench.cuda else 0,
        "sm_clock_before_mhz": loop.clocks[0],
        "sm_clock_after_mhz": loop.clocks[1],
        "clock_source": ("nvml" if loop.clocks[0] >= 0 else "none") if bench.cuda else "host",
        "judge_median_us": sample_stats(loop.w)["median_us"],
        "time_basis": "runner_events_checked" if bench.cuda else "runner_host_checked",
    })
    return t


def clock_samples(loop):
    """What the controller's clock-agreement rule reads (verdictpolicy.h)."""
    return {"judge_us": [round(x, 3) for x in loop.w], "runner_us": [round(x, 3) for x in loop.e]}


def secret_seed():
    return int.from_bytes(os.urandom(6), "little") + 2_000_000
