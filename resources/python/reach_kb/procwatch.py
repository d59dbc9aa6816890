"""What the judge knows of the runner's processes from the kernel, not from the runner.

- `protect_self()`: the judge becomes non-dumpable (PR_SET_DUMPABLE 0), so a process of the same
  user cannot ptrace it, read its memory or open its descriptors through /proc/<pid>/fd (the way
  a candidate would reach the judge's stdout to write a forged verdict); and a child subreaper
  (PR_SET_CHILD_SUBREAPER), so whatever the runner starts and abandons is re-parented to the
  judge instead of to init, and can be found and killed at the end of the job.
- `threads(pid)`, `descendants(pid)`: read from /proc, which the runner cannot forge.
- `kill_tree(pid)`: SIGKILL the runner and everything below it, then reap every child of the
  judge until none is left (orphans arrive as they lose their parents).
"""

import ctypes
import os
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36

_libc = None


def _prctl(option, value):
    global _libc
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        return _libc.prctl(option, ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0),
                           ctypes.c_ulong(0)) == 0
    except Exception:
        return False


def protect_self():
    """Returns the notes for what could not be set (empty on Linux)."""
    notes = []
    if os.environ.get("REACH_DEBUG_DUMPABLE") != "1" and not _prctl(PR_SET_DUMPABLE, 0):
        notes.append("could not make the judge non-dumpable (prctl PR_SET_DUMPABLE)")
    if not _prctl(PR_SET_CHILD_SUBREAPER, 1):
        notes.append("could not make the judge a child subreaper (prctl PR_SET_CHILD_SUBREAPER)")
    return notes


def die_with_parent():
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_privileges():
    """The runner keeps no capability and can gain none (no_new_privs). Run as root, a candidate
    would otherwise hold CAP_SYS_PTRACE and CAP_DAC_OVERRIDE, which pass over the judge's
    non-dumpable guard (/proc/<judge>/fd, /proc/<judge>/mem). Returns what could not be done."""
    global _libc
    notes = []
    if not _prctl(PR_SET_NO_NEW_PRIVS, 1):
        notes.append("no_new_privs not set")
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        for cap in range(64):
            _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), ctypes.c_ulong(0), ctypes.c_ulong(0),
                        ctypes.c_ulong(0))
        hdr = _CapHeader(_CAP_VERSION_3, 0)
        data = (_CapData * 2)()
        if _libc.capset(ctypes.byref(hdr), data) != 0:
            notes.append("capabilities not dropped (capset failed)")
    except Exception as e:
        notes.append(f"capabilities not dropped ({e})")
    return notes


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (state first: field 3 of proc(5)),
    as strings; None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces or parentheses: split after the last.
    return data[data.rfind(b")") + 2:].decode("ascii", "replace").split()


def _stat(pid):
    """(state, ppid) of a process, None when it is gone."""
    rest = stat_fields(pid)
    if not rest or len(rest) < 2:
        return None
    return rest[0], int(rest[1])


def _all_parents():
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                out[int(name)] = st
    return out


def descendants(pid):
    """Live (not zombie) processes below `pid`, by the parent links the kernel keeps."""
    table = _all_parents()
    children = {}
    for p, (state, ppid) in table.items():
        children.setdefault(ppid, []).append((p, state))
    found, todo = [], [pid]
    while todo:
        for c, state in children.get(todo.pop(), []):
            if state != "Z":
                found.append(c)
            todo.append(c)
    return found


def threads(pid):
    """The number of threads of `pid` (0 when it is gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm", "r", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return "?"


def kill_tree(pid, budget_s=5.0):
    """SIGKILLs `pid` and its descendants, then reaps this process's children (the orphans of
    the tree come to it as a subreaper) until none is left or the budget is spent. Returns how
    many processes other than `pid` were killed."""
    killed = set()
    deadline = time.monotonic() + budget_s
    while True:
        targets = [pid] + descendants(pid) + descendants(os.getpid())
        live = [t for t in dict.fromkeys(targets) if t != os.getpid() and _stat(t) is not None
                and _stat(t)[0] != "Z"]
        for t in live:
            try:
                os.kill(t, signal.SIGKILL)
            except OSError:
                pass
            if t != pid:
                killed.add(t)
        # Reap whatever has died (our own children, and orphans re-parented to us).
        while True:
            try:
                got, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                got = 0
            if got == 0:
                break
        if not live or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    return len(killed)
