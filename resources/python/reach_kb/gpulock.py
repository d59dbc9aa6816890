"""Timing needs the whole GPU (docs/batch.md): a batch may run several verifiers on one GPU at once,
but only one of them times at a time. Each timed loop holds an exclusive flock on the file named by
$REACH_GPU_LOCK (the batch sets it per GPU; reach-verify's C++ timing takes the same lock). Without
the variable, or when the file cannot be opened, timing goes on unlocked.
"""

import contextlib
import fcntl
import functools
import os


@contextlib.contextmanager
def timing_lock():
    path = os.environ.get("REACH_GPU_LOCK")
    fd = None
    if path:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            if fd is not None:
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
