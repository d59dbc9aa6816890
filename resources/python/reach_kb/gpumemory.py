"""Memory admission on a GPU that verifiers share (issue 38; docs/batch.md, "Memory").

A job that cannot get its memory waits for it, or says so; it never starts beside jobs that
leave it too little and then looks like a candidate that hung. Before its first GPU allocation a
job estimates what it will hold (`estimate`, from the problem's tensors) and asks the ledger for
it (`admit`); the estimate stays booked until the job ends.

The ledger is the file $REACH_GPU_LOCK names with ".memory" added (the timing lock's sibling, so
everything that shares the lock shares the ledger: a batch, the GUI's queue, reach-verify's C++
jobs through core/verify/gpumemoryledger.cpp, which reads and writes the same format). One line
per job, under the file's own flock:

    <pid> <its /proc start time> <bytes> <A|W> <ticket>

A (admitted) or W (waiting). A job is admitted in ticket order (first come, first served: a big
job is never starved by small ones) when it is alone, or when what the admitted jobs booked plus
its own estimate fits ADMIT_SHARE of the GPU and its estimate fits what the driver says is free.
A job alone is always admitted, whatever it estimates: the estimate decides who runs together,
never whether a job may run (its real allocations then say "out of GPU memory" if they must).
Lines of processes that are gone (pid and start time no longer match) are dropped by whoever
reads them, so a job killed anyhow frees its booking.

A wait is reported as a wait for the GPU (gpulock._waiting: $REACH_QUEUE_FILE), so it is not
the job's own time and ends, past the controller's queue limit, in "the GPU was busy for N s".
A candidate can write the file (it is the same kind of file as the timing lock): what it can
gain is a wait or an out-of-memory error, never a verdict or a time.
"""

import contextlib
import fcntl
import os
import time

from . import gpulock, procwatch

SUFFIX = ".memory"
ADMIT_SHARE = 0.92  # of the GPU's memory: the rest for contexts, fragmentation and other users
POLL_S = 0.25
MAX_LINES = 4096
MAX_BYTES = 1 << 50
CONTEXTS_BYTES = 1 << 30  # the judge's and the runner's CUDA contexts and workspaces


def ledger_path():
    lock = os.environ.get("REACH_GPU_LOCK")
    return lock + SUFFIX if lock else None


def _start_time(pid):
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None."""
    fields = procwatch.stat_fields(pid)
    return fields[19] if fields and len(fields) > 19 else None


class Entry:
    __slots__ = ("pid", "start", "bytes", "state", "ticket")

    def __init__(self, pid, start, nbytes, state, ticket):
        self.pid, self.start, self.bytes, self.state, self.ticket = pid, start, nbytes, state, ticket

    def line(self):
        return f"{self.pid} {self.start} {self.bytes} {self.state} {self.ticket}\n"

    def alive(self):
        return _start_time(self.pid) == self.start


def parse(text):
    """The ledger's lines that are well formed (others are ignored: a torn or hostile line books
    nothing)."""
    out = []
    for line in text.splitlines()[:MAX_LINES]:
        f = line.split()
        if len(f) != 5 or f[3] not in ("A", "W"):
            continue
        try:
            pid, nbytes, ticket = int(f[0]), int(f[2]), int(f[4])
        except ValueError:
            continue
        if pid > 0 and 0 <= nbytes <= MAX_BYTES and 0 <= ticket < (1 << 62) and f[1].isdigit():
            out.append(Entry(pid, f[1], nbytes, f[3], ticket))
    return out


def decide(entries, me, need, budget, free):
    """Whether `me` (its ticket among `entries`, all alive) may start now."""
    others = [e for e in entries if e.pid != me]
    if any(e.state == "W" and e.ticket < _ticket_of(entries, me) for e in others):
        return False  # first come, first served
    booked = sum(e.bytes for e in others if e.state == "A")
    if not any(e.state == "A" for e in others):
        return True  # alone: the estimate never forbids a job to run
    return booked + need <= budget and (free is None or need <= free)


def _ticket_of(entries, pid):
    for e in entries:
        if e.pid == pid:
            return e.ticket
    return 1 << 62


class Booking:
    """An admitted job's line in the ledger, removed by `release` (or when the process ends)."""

    def __init__(self, path, waited_s, need):
        self.path = path
        self.waited_s = waited_s
        self.need = need

    def record(self, total):
        return {"estimated_bytes": int(self.need), "gpu_bytes": int(total),
                "admission_wait_s": round(self.waited_s, 3)}

    def release(self):
        if self.path is None:
            return
        with _locked(self.path) as fd:
            if fd is not None:
                mine = os.getpid()
                _write(fd, [e for e in _read(fd) if e.pid != mine and e.alive()])
        self.path = None


@contextlib.contextmanager
def _locked(path):
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o666)
    except OSError:
        yield None
        return
    try:
        try:
            os.fchmod(fd, 0o666)  # other users' jobs on this GPU book here too
        except OSError:
            pass
        fcntl.flock(fd, fcntl.LOCK_EX)  # held for microseconds by anyone
        yield fd
    finally:
        os.close(fd)


def _read(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    data = os.read(fd, MAX_LINES * 64)
    return parse(data.decode("ascii", "replace"))


def _write(fd, entries):
    data = "".join(e.line() for e in entries).encode()
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
    os.ftruncate(fd, len(data))


def admit(need, total, free_fn=None, path=None, poll_s=POLL_S):
    """Books `need` bytes on the GPU of `total` bytes, waiting in turn until they fit. Returns a
    Booking (its `path` None when there is no ledger: a job alone, outside any batch)."""
    path = path if path is not None else ledger_path()
    if not path:
        return Booking(None, 0.0, need)
    me = os.getpid()
    start = _start_time(me)
    budget = int(total * ADMIT_SHARE)
    t0 = time.monotonic()
    waiting = None
    try:
        while True:
            with _locked(path) as fd:
                if fd is None:
                    return Booking(None, 0.0, need)  # no ledger to be had: as without one
                entries = [e for e in _read(fd) if e.alive()]
                mine = next((e for e in entries if e.pid == me), None)
                if mine is None:
                    ticket = max((e.ticket for e in entries), default=0) + 1
                    mine = Entry(me, start, int(need), "W", ticket)
                    entries.append(mine)
                free = free_fn() if free_fn is not None else None
                if decide(entries, me, need, budget, free):
                    mine.state = "A"
                    _write(fd, entries)
                    return Booking(path, time.monotonic() - t0, need)
                _write(fd, entries)
            if waiting is None:
                waiting = gpulock._waiting()
                waiting.__enter__()
            time.sleep(poll_s)
    finally:
        if waiting is not None:
            waiting.__exit__(None, None, None)


# ---- what a KernelBench-format job will hold --------------------------------------------------
def job_bytes(inputs, output_bytes, float_inputs_bytes, float_output, elem_size):
    """The judge's estimate of a job's peak on its GPU, from its tensors at the precision
    (measured on 19_ReLU, fp32 6 GiB in and out: judge 24-26 GiB, runner 7.5-8 GiB, shared
    12 GiB): the shared regions (inputs and the slot), one draw of the inputs in the judge,
    the float64 reference (its floating inputs and output upcast), the runner's output and the
    eager baseline's, and the two processes' contexts."""
    wide = 8.0 / max(elem_size, 1)
    need = 2 * inputs + 2.5 * output_bytes
    need += wide * float_inputs_bytes + (wide * output_bytes if float_output else 0)
    return int(need) + CONTEXTS_BYTES


def kernelbench_bytes(inputs, output_bytes):
    """KernelBench's check as reproduced (kbverdict.py): one trial's inputs and the two models'
    outputs at a time, the timed inputs, and the process's context."""
    return int(2 * inputs + 3 * output_bytes) + CONTEXTS_BYTES // 2


def estimate(torch, problem, dtype, init_inputs, kind="judge"):
    """What a job of `kind` ("judge": job_bytes; "kernelbench": kernelbench_bytes) will hold for
    a problem, from its get_inputs() and Model on PyTorch's meta device (no memory, no compute),
    or None when they cannot run there."""
    try:
        with torch.device("meta"):
            raw = list(problem.get_inputs())
            ins = [x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                   for x in raw]
            model = problem.Model(*[x.to("meta") if isinstance(x, torch.Tensor) else x
                                    for x in init_inputs])
            model = model.to(device="meta", dtype=dtype)
            with torch.no_grad():
                out = model(*ins)
    except Exception:
        return None
    if not isinstance(out, torch.Tensor):
        return None
    return from_tensors(torch, ins, out, kind)


def from_tensors(torch, inputs, out, kind="judge"):
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    nbytes = sum(x.numel() * x.element_size() for x in tensors)
    out_bytes = out.numel() * out.element_size()
    if kind == "kernelbench":
        return kernelbench_bytes(nbytes, out_bytes)
    fl = sum(x.numel() * x.element_size() for x in tensors if x.is_floating_point())
    elem = out.element_size() if out.is_floating_point() else 4
    return job_bytes(nbytes, out_bytes, fl, out.is_floating_point(), elem)


def book(torch, device, problem, dtype, init_inputs, kind, notes):
    """Estimates and books a job's memory on `device` (None on the CPU): the one call of the
    judge and of KernelBench's reproduction."""
    if device.type != "cuda":
        return None
    need = estimate(torch, problem, dtype, init_inputs, kind)
    free, total = torch.cuda.mem_get_info(device)
    if need is None:
        notes.append("memory: get_inputs() or Model could not run on the meta device; the job "
                     "booked the GPU's memory as a job alone")
        need = int(total * ADMIT_SHARE)
    return admit(need, total, lambda: torch.cuda.mem_get_info(device)[0])
