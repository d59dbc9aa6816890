"""Keeps stdout for the one JSON document, whatever the candidate, PyTorch or nvcc print.

Candidates print (KernelBench's own examples build with `verbose=True`), ninja writes to the
inherited file descriptors, and PyTorch warns on stderr. So the real stdout is set aside at start
and file descriptor 1 is pointed at stderr for the rest of the job. Two phases need more:

- `quiet()`: while the options and the problem are read, both descriptors go to a temporary file,
  so that a bad-input exit leaves exactly one line on stderr; the text goes into the JSON `log`.
- `tee()`: while the candidate is loaded and run, both descriptors go through a pipe to the real
  stderr and into a tail buffer for the `log`. The copy to stderr is immediate, so a candidate that
  kills the process still leaves its output for the parent (`crashed` with the stderr tail).
"""

import collections
import os
import sys
import tempfile
import threading

LOG_TAIL_BYTES = 64 * 1024


def _write_all(fd: int, data: bytes) -> None:
    while data:
        n = os.write(fd, data)
        data = data[n:]


class Console:
    def __init__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.real_out = os.dup(1)
        self.real_err = os.dup(2)
        os.dup2(2, 1)
        self._tail = collections.deque()
        self._tail_bytes = 0
        self._lock = threading.Lock()
        self.messages = []  # the worker's own notes for the log, in order

    # ---- the log ------------------------------------------------------------------------
    def note(self, text: str) -> None:
        self.messages.append(text)

    def _keep(self, data: bytes) -> None:
        with self._lock:
            self._tail.append(data)
            self._tail_bytes += len(data)
            while self._tail_bytes > LOG_TAIL_BYTES and len(self._tail) > 1:
                self._tail_bytes -= len(self._tail.popleft())

    def log_text(self) -> str:
        with self._lock:
            out = b"".join(self._tail).decode("utf-8", "replace")
        if len(out) > LOG_TAIL_BYTES:
            out = out[-LOG_TAIL_BYTES:]
        parts = [m for m in self.messages if m]
        if out.strip():
            parts.append(out.rstrip("\n"))
        return "\n".join(parts)

    # ---- phases -------------------------------------------------------------------------
    def _flush(self) -> None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass

    def _restore(self) -> None:
        os.dup2(self.real_err, 2)
        os.dup2(self.real_err, 1)

    def quiet(self):
        return _Quiet(self)

    def tee(self):
        return _Tee(self)

    # ---- final output -------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self._flush()
        _write_all(self.real_out, (text + "\n").encode("utf-8"))

    def error_line(self, line: str) -> None:
        self._flush()
        _write_all(self.real_err, (line.replace("\n", " ") + "\n").encode("utf-8"))


class _Quiet:
    def __init__(self, console: Console):
        self.c = console

    def __enter__(self):
        self.c._flush()
        self.file = tempfile.TemporaryFile()
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        self.c._flush()
        self.c._restore()
        self.file.seek(0)
        data = self.file.read()
        self.file.close()
        if data:
            self.c._keep(data)
        # Shown on stderr only when the job goes on: a bad-input exit must stay one line.
        self.text = data
        return False

    def replay(self) -> None:
        if getattr(self, "text", b""):
            _write_all(self.c.real_err, self.text)


class _Tee:
    def __init__(self, console: Console):
        self.c = console

    def __enter__(self):
        self.c._flush()
        self.r, self.w = os.pipe()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()
        os.dup2(self.w, 1)
        os.dup2(self.w, 2)
        return self

    def _pump(self):
        while True:
            try:
                data = os.read(self.r, 65536)
            except OSError:
                return
            if not data:
                return
            try:
                _write_all(self.c.real_err, data)
            except OSError:
                pass
            self.c._keep(data)

    def __exit__(self, *exc):
        self.c._flush()
        self.c._restore()
        os.close(self.w)
        # A child that inherited the pipe (Inductor's compile workers) may hold it open for ever:
        # wait a little for what is in flight, never for EOF.
        self.thread.join(timeout=2.0)
        return False
