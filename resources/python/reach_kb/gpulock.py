"""Verifiers sharing a GPU (docs/batch.md): timing needs the whole GPU, the rest does not.

The file named by $REACH_GPU_LOCK (a batch sets one per GPU; reach-verify's C++ side locks the
same file) is held SHARED for a whole job (`hold_shared`, from the first GPU work on) and
EXCLUSIVELY around each timed loop (`timing_lock`, `exclusive`). So two jobs on one GPU overlap
their untimed work (drawing, references, checks, compiles), but while one times, no other job
runs anything on that GPU: another process's kernels, time-sliced into a timed repetition, would
lengthen it on the judge's clock and not on the runner's, a disagreement that is not the
candidate's. The exclusive lock is taken on the same descriptor as the shared one (flock
converts it, releasing the shared lock first), so two jobs waiting to time never deadlock.
Without the variable, or when the file cannot be opened, everything goes on unlocked.

Waiting for the lock is not the job's work (issue 38: an honest job queued behind another's
torch.compile was killed as a hang). Each wait is reported in the file named by
$REACH_QUEUE_FILE (core/verify/queueclock.h has the format): the controller stops the job's
clock while it waits and bounds the waiting apart, ending in "the GPU was busy", never `timeout`.
"""

import contextlib
import fcntl
import functools
import os
import time

_shared_fd = None


def _open():
    path = os.environ.get("REACH_GPU_LOCK")
    if not path:
        return None
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        return None


def _queue_total(fd):
    """The seconds this job has waited so far, as the file says (0 when it says nothing)."""
    try:
        fields = os.pread(fd, 128, 0).split()
        total = float(fields[0]) if fields else 0.0
        return total if 0.0 <= total < 1e9 else 0.0
    except (OSError, ValueError):
        return 0.0


def _queue_write(fd, total, since):
    # One record at the start of the file, written in one call (the reader tolerates a torn one).
    os.pwrite(fd, (f"{total:.6f} {since:.6f}".ljust(63) + "\n").encode(), 0)


@contextlib.contextmanager
def _waiting():
    """Reports a wait for the GPU to the controller (no-op without $REACH_QUEUE_FILE)."""
    path = os.environ.get("REACH_QUEUE_FILE")
    fd = None
    if path:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            fd = None
    start = time.monotonic()
    total = _queue_total(fd) if fd is not None else 0.0
    try:
        if fd is not None:
            _queue_write(fd, total, start)
        yield
    finally:
        if fd is not None:
            try:
                _queue_write(fd, total + (time.monotonic() - start), 0.0)
            finally:
                os.close(fd)


def _flock(fd, how):
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass  # another job holds it: wait, and say so
    except OSError:
        return False
    with _waiting():
        while True:
            try:
                fcntl.flock(fd, how)
                return True
            except InterruptedError:
                continue
            except OSError:
                return False


def hold_shared():
    """Takes the GPU's lock shared for the rest of this process (idempotent)."""
    global _shared_fd
    if _shared_fd is not None:
        return
    fd = _open()
    if fd is not None and _flock(fd, fcntl.LOCK_SH):
        _shared_fd = fd
    elif fd is not None:
        os.close(fd)


@contextlib.contextmanager
def timing_lock():
    if _shared_fd is not None:
        _flock(_shared_fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            _flock(_shared_fd, fcntl.LOCK_SH)
        return
    fd = _open()
    if fd is not None and not _flock(fd, fcntl.LOCK_EX):
        os.close(fd)
        fd = None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


def exclusive(fn):
    """Runs fn under timing_lock()."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with timing_lock():
            return fn(*args, **kwargs)
    return wrapper
