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
"""

import contextlib
import fcntl
import functools
import os

_shared_fd = None


def _open():
    path = os.environ.get("REACH_GPU_LOCK")
    if not path:
        return None
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        return None


def _flock(fd, how):
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
