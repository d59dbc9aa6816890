"""Timing through the trust boundary: the judge's own clock (docs/verifier.md, "A time the judge
owns").

The figure Reach reports is the judge's measurement of each repetition, less the harness's part
of it, which the judge calibrates on the problem's own code before the candidate is loaded. The
runner's own event times are a claim, held against the judge's (the clock agreement,
verdictpolicy.h) and never the figure.

One repetition on CUDA, queued by the judge on its own stream before the runner is asked:
  [Epre] the repetition's inputs copied into the shared regions, the slot filled with the
  pattern, the L2 flush (a buffer of max(2 x L2, 64 MiB) zeroed, as do_bench does) and the spacer
  (the same zeroing until about SPACER_US of GPU time is queued) [E0] `go` written; a wait for the
  runner's `done`; the output gathered at K secret positions, in place [E1].
The runner's stream waits for `go`, runs the call (its own events around it: the claim), and
writes `done` (devicesync.py). The GPU runs one context at a time, so:
- nothing of the repetition can start before E0 on the runner's stream, and its inputs exist only
  from Epre; work the runner's context does during the judge's stretch [Epre, E0] (a kernel left
  running that computes ahead, time-sliced in) lengthens the stretch: the window is taken from
  Epre, less the stretch as the calibration measured it;
- the window ends when the judge's gather has read the output: work the runner leaves on a
  stream of its own after `done` either runs before the gather (and is in the window) or after it
  (and the sampled elements are wrong);
- the output is read where the candidate's allocator put it (a CUDA IPC mapping, devicesync.py),
  so the runner makes no copy: a copy inside the window would be time a candidate saves by
  writing the slot itself, one outside it time a candidate fills with work (issue 36). Where the
  output cannot be read in place (another allocator, not contiguous), the runner copies it into
  the slot before `done`: inside the window, the candidate's cost. The judge gathers at the K
  places the output had most recently; a repetition whose output was somewhere else is drawn
  again (a candidate that moves it every call cannot be timed: that is a failure).
On the CPU (the tests): the judge's host clock from just before it copies the inputs into the
shared regions (nothing of a repetition exists for the runner earlier: a thread that watches
them computes inside the window) to when it has sampled the slot; the runner copies its output
into the slot inside its own window.

Per repetition the judge also checks what the correctness runs check of the runner's answer
(type, shape, dtype, aliasing, the hand-over) and counts the runner's threads in /proc.
"""

import math
import os
import statistics
import time

from . import channel, procwatch
from .gpulock import exclusive

FLUSH_MIN_BYTES = 64 << 20
FLUSH_UNKNOWN_L2_BYTES = 256 << 20
SPACER_US = 400.0  # GPU work queued ahead of the runner's call (both hosts' latency hides behind)
SAMPLES_PER_REP = 1 << 16  # output elements gathered from every repetition
PLACES = 4  # recent places of the output the judge gathers from, every repetition alike
THREAD_GRACE_S = 0.1


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
    """What every timed loop of a job shares: the flush buffer, the spacer, the timing stream, the
    words shared with the runner and the mappings of its allocations, the SM clock reader."""

    def __init__(self, torch, device, notes):
        self.torch = torch
        self.device = device
        self.cuda = device.type == "cuda"
        self.flush = None
        self.flush_n = 0
        self.spacer_flushes = 0
        self.flush_us = None
        self.clock = None
        self.stream = None
        self.flags = None  # devicesync.Flags, once the judge shared its region
        self.mappings = None
        self.token = 0
        # Set when the judge could not open a place the runner reported (its IPC handle): from
        # then on the runner copies its output into the slot inside the window, the candidate's
        # cost (a candidate that reports a place that does not open only slows itself).
        self.copy_mode = False
        self.notes = notes
        if self.cuda:
            from . import devicesync
            props = torch.cuda.get_device_properties(device)
            self.flush_n = flush_bytes(getattr(props, "L2_cache_size", 0))
            self.flush = torch.empty(self.flush_n, dtype=torch.uint8, device=device)
            uuid = getattr(props, "uuid", None)
            self.clock = SmClock(device.index, str(uuid) if uuid is not None else None)
            self.stream = torch.cuda.Stream(device=device)
            self.mappings = devicesync.Mappings()
            self.flush_us = self._flush_time()
            self.spacer_flushes = max(1, int(math.ceil(SPACER_US / max(self.flush_us, 1.0))))
        else:
            notes.append("cpu: L2 flush, CUDA events and SM clocks not measured; the judge's host "
                         "clock (perf_counter) around each repetition, the runner's as its claim")

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

    def next_token(self):
        self.token += 1
        return self.token

    def unblock(self, token):
        """Writes `done` from the judge's side (a stream of its own), so that the timing stream,
        which waits for it, is never held by a runner that died or lied."""
        from .devicesync import Flags
        side = self.torch.cuda.Stream(device=self.device)
        self.flags.write(side, Flags.DONE, token)
        side.synchronize()

    def wait_event(self, ev, timeout_s):
        """Whether `ev` completed within the deadline (polled: a runner that never writes `done`
        must not hold the judge)."""
        deadline = time.monotonic() + timeout_s
        while not ev.query():
            if time.monotonic() > deadline:
                return False
            time.sleep(50e-6)
        return True

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(self.device)


class LoopResult:
    def __init__(self):
        self.total = []  # the judge's time per repetition (us): Epre..E1 (CUDA), t0..t2 (CPU)
        self.stretch = []  # Epre..E0: the judge's own part before `go` (CUDA; 0 on the CPU)
        self.e = []  # the runner's claimed time per repetition (us)
        self.samples = None  # [reps, K] gathered output elements (timed repetitions only)
        self.seeds = []  # per timed repetition: the call index InputSource.prepare was given
        self.failure = None  # (kind, text) when a repetition broke the loop
        self.claims = []  # (repetition, check name, phrase): what the runner's answers gave away
        self.redrawn = 0  # repetitions drawn again: the output was not where the judge gathered
        self.clocks = (-1, -1)

    def windows(self, stretch_ref, stretch_tol=0.0):
        """The judge's window per repetition, E0..E1 (CUDA) or t0..t2 (CPU), with whatever the
        judge's own stretch before `go` took beyond the calibration's (its median and spread):
        GPU time another context took while the inputs already existed (CUDA)."""
        out = []
        stretch = list(self.stretch) + [0.0] * (len(self.total) - len(self.stretch))
        for t, st in zip(self.total, stretch):
            out.append(t - st + max(0.0, st - stretch_ref - stretch_tol))
        return out


class Calibration:
    """The harness's part of a window, measured on the problem's own code before the candidate
    was loaded (its event times are Reach's then): the median of (window - event time), and the
    judge's stretch before `go` (median, and a tolerance from its spread). Every figure of the
    job is a window less `gap_us`."""

    def __init__(self, loop, cuda):
        self.cuda = cuda
        st = sorted(loop.stretch) if cuda and loop.stretch else [0.0]
        self.stretch_us = statistics.median(st)
        # Three median absolute deviations, at least 2 us: the judge's memsets vary that little.
        mad = statistics.median([abs(x - self.stretch_us) for x in st])
        self.stretch_tol_us = max(2.0, 3.0 * mad) if cuda else 0.0
        w = loop.windows(self.stretch_us, self.stretch_tol_us)
        self.gap_us = statistics.median([a - b for a, b in zip(w, loop.e)]) if w else 0.0
        self.reps = len(w)
        self.judge_us = w
        self.runner_us = list(loop.e)

    def windows(self, loop):
        return loop.windows(self.stretch_us, self.stretch_tol_us)

    def figures(self, loop):
        """The windows less the gap. On the host clock (the CPU tests) a repetition's window holds
        two processes' wake-ups on a busy machine, milliseconds of noise around a call of
        microseconds: there the figure is never below the runner's own claim either (a claim that
        is too short cannot lower it, one too long only costs the candidate)."""
        # A window shorter than the gap is a call below the judge's resolution: 0, never negative.
        w = [max(0.0, x - self.gap_us) for x in self.windows(loop)]
        if self.cuda:
            return w
        return [max(a, b) for a, b in zip(w, loop.e)]

    def record(self):
        return {"gap_us": round(self.gap_us, 3), "stretch_us": round(self.stretch_us, 3),
                "stretch_tolerance_us": round(self.stretch_tol_us, 3),
                "clock": {"judge_us": [round(x, 3) for x in self.judge_us],
                          "runner_us": [round(x, 3) for x in self.runner_us]}}


class Places:
    """Where the runner's output was on the last calls (its IPC location), the judge's views of
    them, and the slot: the PLACES sources every repetition gathers from (CUDA)."""

    def __init__(self, torch, device, bench, nbytes, dtype):
        self.torch = torch
        self.device = device
        self.bench = bench
        self.nbytes = nbytes
        self.dtype = dtype
        self.recent = []  # [(key, flat view)] most recent first

    @staticmethod
    def key(loc):
        return (loc.get("handle"), loc.get("offset")) if isinstance(loc, dict) else None

    def views(self, slot_flat):
        """PLACES recent places (the slot where there are fewer), then the slot: as many gathers
        on every repetition, of every callable, so the calibrated gap holds them all."""
        out = [v for _, v in self.recent][:PLACES]
        while len(out) < PLACES:
            out.append(slot_flat)
        return out + [slot_flat]

    def index_of(self, loc):
        k = self.key(loc)
        for i, (kk, _) in enumerate(self.recent):
            if kk == k:
                return i
        return None

    def learn(self, loc):
        """After a reply: the output's place becomes the most recent (opened if new)."""
        from .cudavmm import as_tensor
        k = self.key(loc)
        if k is None or k[0] is None:
            return
        i = self.index_of(loc)
        if i is not None:
            self.recent.insert(0, self.recent.pop(i))
            return
        got = self.bench.mappings.address(loc)
        if got is None or got[1] < self.nbytes:
            if not self.bench.copy_mode:
                self.bench.copy_mode = True
                self.bench.notes.append("timing: an output place the runner reported could not be read in "
                                        "place (CUDA IPC); from then on it is copied into the slot inside "
                                        "the window")
            return
        view = as_tensor(self.torch, self.device, got[0], self.nbytes).view(self.dtype).reshape(-1)
        self.recent.insert(0, (k, view))
        del self.recent[PLACES:]


def _claims(res, r, reply, expect, judge):
    """What the correctness runs check of an answer, every timed repetition too."""
    bad = []
    if reply.get("type") != "Tensor" or not reply.get("exact_tensor"):
        bad.append(("output_type", f"returned a {reply.get('type')}, not exactly a torch.Tensor"))
    if reply.get("shape") != list(expect[0]) or reply.get("dtype") != expect[1]:
        bad.append(("shape", f"returned {reply.get('dtype')} {reply.get('shape')}"))
    if reply.get("aliases") and not judge.reference_aliases:
        bad.append(("output_aliases_input", f"the output shares storage with input(s) {reply.get('aliases')}"))
    n = procwatch.threads(judge.handle.pid)
    base = judge.threads_after_load or n
    if n > base:
        time.sleep(THREAD_GRACE_S)
        n = procwatch.threads(judge.handle.pid)
        if n > base:
            bad.append(("threads", f"{n - base} thread(s) started by the candidate still running"))
    for name, phrase in bad:
        res.claims.append((r, name, phrase))


@exclusive
def run_loop(torch, judge, source, reps, warmup, gather, timeout_s):
    """Runs warmup + reps repetitions of the callable the runner is using. `source.prepare(r)`
    gives call r's inputs in the judge's memory; `gather` is (slot_flat, idx) or None. Returns a
    LoopResult (times of the timed repetitions only)."""
    bench = judge.bench
    res = LoopResult()
    flat, idx = gather if gather is not None else (None, None)
    if gather is not None:
        res.samples = torch.empty((reps, idx.numel()), dtype=flat.dtype, device=flat.device)
    expect = (judge.expected_shape, str(judge.expected_dtype).replace("torch.", ""))
    places = None
    if bench.cuda and flat is not None:
        places = Places(torch, judge.device, bench, judge.out_bytes, judge.expected_dtype)
    before = bench.clock.mhz() if bench.clock else -1
    calls = len(source.seeds)
    timed_done = 0
    r = -1
    try:
        while timed_done < reps:
            r += 1
            if r >= calls:
                res.failure = ("unreadable", f"the output was not where the judge read it on "
                               f"{res.redrawn} of {r} calls: it cannot be timed in the judge's window")
                break
            timed = r >= warmup
            x = source.prepare(r)
            try:
                if bench.cuda:
                    got = _gpu_rep(torch, judge, bench, x, r, flat, idx, places, timeout_s)
                else:
                    got = _cpu_rep(judge, x, r, flat, idx, timeout_s)
            except channel.Silent as e:
                res.failure = ("timeout", f"the runner did not answer call {r} in time ({e})")
                break
            except (channel.RunnerGone, channel.ProtocolError) as e:
                res.failure = ("crashed", f"the runner broke off at call {r}: {e}")
                break
            del x
            reply, total, stretch, sample = got
            if reply.get("id") != r:
                # Every answer is for the call asked for: a runner that answers ahead (to be
                # "done" before its work is) desynchronizes, and that ends the job.
                res.failure = ("crashed", f"the runner answered {reply.get('id')!r} to call {r}")
                break
            if reply.get("op") != "ran" or reply.get("error") or not (reply.get("copied") or reply.get("location")):
                res.failure = ("reply", reply)
                break
            e_us = reply.get("e_us")
            if isinstance(e_us, bool) or not isinstance(e_us, (int, float)) or not (0 <= e_us < 1e12):
                res.failure = ("reply", dict(reply, error=f"an event time that is not a time: {e_us!r}"))
                break
            if sample is None:
                res.redrawn += 1  # not read in the window: this call does not count
                continue
            if not timed:
                continue
            _claims(res, r, reply, expect, judge)
            res.total.append(total)
            res.stretch.append(stretch)
            res.e.append(float(e_us))
            if res.samples is not None:
                res.samples[timed_done].copy_(sample)
            res.seeds.append(r)
            timed_done += 1
    finally:
        if bench.mappings is not None:
            bench.sync()
            bench.mappings.close_all()  # before the runner may free what was mapped
    after = bench.clock.mhz() if bench.clock else -1
    res.clocks = (before, after)
    return res


def _cpu_rep(judge, x, r, flat, idx, timeout_s):
    t0 = time.perf_counter()
    values = judge.shared.load(x)  # the inputs exist for the runner from here on
    judge.chan.send({"op": "run", "id": r, "values": values, "timed": True})
    reply, _ = judge.chan.recv(timeout=timeout_s)
    sample = flat[idx].clone() if flat is not None and reply.get("copied") else None
    t2 = time.perf_counter()
    if flat is None:
        sample = True
    return reply, (t2 - t0) * 1e6, 0.0, sample


class ClockUnavailable(RuntimeError):
    """The GPU or its driver cannot give the judge its clock: the job is not judged (error)."""


def _gpu_rep(torch, judge, bench, x, r, flat, idx, places, timeout_s):
    from .cudavmm import DriverError
    from .devicesync import Flags
    s = bench.stream
    s.wait_stream(torch.cuda.current_stream(judge.device))  # the draw is complete first
    token = bench.next_token()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
    sources = places.views(flat) if places is not None else []
    with torch.cuda.stream(s):
        ev[0].record(s)
        values = judge.shared.load(x)
        bench.queue_flush_and_spacer()
    # The runner is asked while the spacer runs: its message and launches, and the rest of the
    # judge's queue below, hide behind it. E0 and `go` are one batch: nothing of the host between.
    judge.chan.send({"op": "run", "id": r, "values": values, "timed": True, "token": token,
                     "copy": bench.copy_mode})
    with torch.cuda.stream(s):
        ev[1].record(s)
        try:
            bench.flags.write(s, Flags.GO, token)
            bench.flags.wait(s, Flags.DONE, token)
        except DriverError as e:
            # The judge's clock needs the driver's stream memory operations: not a candidate's doing.
            raise ClockUnavailable(f"the judge's clock needs CUDA stream memory operations ({e})")
        gathered = [src[idx] for src in sources]
        ev[2].record(s)
    try:
        reply, _ = judge.chan.recv(timeout=timeout_s)
    except BaseException:
        bench.unblock(token)
        raise
    if not bench.wait_event(ev[2], timeout_s):
        # The runner answered and never wrote `done`: its stream still holds the call.
        bench.unblock(token)
        raise channel.ProtocolError(f"the runner answered call {r} without finishing it "
                                    f"(its stream never reached the end of the call)")
    total = ev[0].elapsed_time(ev[2]) * 1000.0
    stretch = ev[0].elapsed_time(ev[1]) * 1000.0
    sample = None
    if places is None:
        sample = True
    elif reply.get("copied"):
        sample = gathered[-1]  # copied into the slot inside the window
    else:
        i = places.index_of(reply.get("location"))
        sample = gathered[i] if i is not None else None
        places.learn(reply.get("location"))
    return reply, total, stretch, sample


def record(figures, loop, warmup, bench, basis_gpu):
    """docs/verifier.md's timing keys from the judge's figures."""
    t = sample_stats(figures)
    t.update({
        "warmup": warmup,
        "l2_flushed": bool(bench.cuda),
        "l2_flush_bytes": bench.flush_n if bench.cuda else 0,
        "sm_clock_before_mhz": loop.clocks[0],
        "sm_clock_after_mhz": loop.clocks[1],
        "clock_source": ("nvml" if loop.clocks[0] >= 0 else "none") if bench.cuda else "host",
        "runner_median_us": sample_stats(loop.e)["median_us"],
        "time_basis": "judge_events" if basis_gpu else "judge_host",
        "redrawn": loop.redrawn,
    })
    return t


def clock_samples(loop, calibration):
    """What the controller's clock-agreement rule reads (verdictpolicy.h): the judge's windows and
    the runner's claims, and the figures (windows less the calibrated gap) the median is of."""
    w = calibration.windows(loop)
    return {"judge_us": [round(a, 3) for a in w], "runner_us": [round(a, 3) for a in loop.e],
            "figure_us": [round(a, 3) for a in calibration.figures(loop)]}


def secret_seed():
    return int.from_bytes(os.urandom(6), "little") + 2_000_000
