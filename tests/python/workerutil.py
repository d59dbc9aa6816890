"""Runs resources/python/reach_kbworker.py as a subprocess, the way Reach does.

Results are memoized by argument list, and `prefetch` starts several runs at once. Most jobs run
in forked children of Reach's own warm worker server (resources/python/reach_kbserver.py, the
one `reach-verify` uses, started here on a control line of this process's, each job on a
connection of its own), which has imported PyTorch: a job is then ~0.3 s instead of ~2 s, most
of which was `import torch`. The bad-input, probe and JSON-contract tests exec the script for
real; REACH_TEST_EXEC=1 execs every job.
"""

import atexit
import concurrent.futures
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(REPO, "resources", "python", "reach_kbworker.py")
PYDIR = os.path.join(REPO, "resources", "python")
SERVER = os.path.join(PYDIR, "reach_kbserver.py")
DATA = os.path.join(REPO, "tests", "data", "kernelbench-py")
PROBLEMS = os.path.join(DATA, "problems")
CANDIDATES = os.path.join(DATA, "candidates")
TIMEOUT_S = 120

if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)

from reach_kbserver import OwnedServer  # noqa: E402  (the owner's side: no PyTorch imported)

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

needs_torch = unittest.skipUnless(HAVE_TORCH, f"no PyTorch in {sys.executable}: run the tests with "
                                              f"a Python that has it (e.g. /usr/bin/python3)")


def problem(name):
    return os.path.join(PROBLEMS, name + ".py")


def candidate(name):
    return os.path.join(CANDIDATES, name + ".py")


class Result:
    def __init__(self, args, proc):
        self.args = args
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = None
        self.json_error = None
        try:
            # Strict: the worker must never write NaN/Infinity literals, and nothing but one object.
            def no_constants(name):
                raise ValueError(f"non-standard JSON constant {name}")
            self.json = json.loads(proc.stdout, parse_constant=no_constants)
        except ValueError as e:
            self.json_error = str(e)

    def describe(self):
        return (f"worker {' '.join(self.args)}\nexit {self.rc}\nstdout: {self.stdout[-3000:]}\n"
                f"stderr: {self.stderr[-3000:]}")


_cache = {}
_lock = threading.Lock()
_local = threading.local()
FORCE_EXEC = os.environ.get("REACH_TEST_EXEC") == "1"


class _Proc:
    def __init__(self, rc, stdout, stderr):
        self.returncode, self.stdout, self.stderr = rc, stdout, stderr


def _env():
    env = dict(os.environ)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    return env


def _exec(args):
    """`python3 reach_kbworker.py ARGS`, exactly as Reach starts it."""
    proc = subprocess.run([sys.executable, WORKER] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=TIMEOUT_S, cwd=REPO, env=_env())
    return Result(list(args), proc)


def request(conn, argv, fds, env=None, cwd=None):
    """Sends one job on a connection to a reach_kbserver.py with fds as its stdin, stdout and
    stderr (the caller closes its copies); the connection answers with JSON lines."""
    body = json.dumps({"argv": list(argv), "env": env if env is not None else dict(os.environ),
                       "cwd": cwd or os.getcwd()}).encode()
    socket.send_fds(conn, [struct.pack(">I", len(body)) + body], list(fds))
    return conn


def send_kill(conn):
    """Asks the server to kill the connection's job."""
    body = json.dumps({"kill": True}).encode()
    conn.sendall(struct.pack(">I", len(body)) + body)


def lines(conn):
    """The JSON lines the server sends for one job: up to its end ({"exit"}, {"signal"} or
    {"refused"}), or until it closes the connection."""
    out, buf = [], b""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                out.append(json.loads(line))
                if {"exit", "signal", "refused"} & set(out[-1]):
                    return out
        chunk = conn.recv(4096)
        if not chunk:
            return out
        buf += chunk


def start_server(env=None, **kwargs):
    """A reach_kbserver.py on a control line of this process's (it exits with this process)."""
    return OwnedServer(python=sys.executable, env=env, **kwargs)


_server = None  # the OwnedServer, started on first use


def _connection():
    global _server
    with _lock:
        if _server is None or _server.proc.poll() is not None:
            _server = start_server(env=_env())
        return _server.connect()


def _forked(args):
    """The same job as a child of the warm server: PyTorch pre-imported, a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        fds = [os.open(os.devnull, os.O_RDONLY),
               os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        conn = _connection()
        try:
            request(conn, args, fds, env=_env(), cwd=REPO)
        finally:
            for fd in fds:
                os.close(fd)
        conn.settimeout(TIMEOUT_S)
        with conn:
            answer = lines(conn)
        end = answer[-1] if answer else {}
        if "refused" in end:
            return _exec(args)  # as Reach does when the server's PyTorch is not the installed one
        if "exit" in end:
            rc = end["exit"]
        elif "signal" in end:
            rc = -end["signal"]
        else:
            raise RuntimeError(f"the worker server ended the job without an answer: {answer}")
        with open(out, encoding="utf-8", errors="replace") as f:
            stdout = f.read()
        with open(err, encoding="utf-8", errors="replace") as f:
            stderr = f.read()
    return Result(list(args), _Proc(rc, stdout, stderr))


def _stop_server():
    if _server is not None:
        _server.close()


atexit.register(_stop_server)


def _run(key):
    how, args = key
    return _exec(args) if how == "exec" or FORCE_EXEC else _forked(args)


def _key(args, exec_):
    return ("exec" if exec_ else "fork", tuple(str(a) for a in args))


def run_worker(*args, exec_=False):
    """The result of one worker job. `exec_=True`: a real exec of the script (the bad-input and
    contract tests use it); otherwise a forked child of the warm worker server (same code path
    after interpreter start-up, without paying `import torch` for every job)."""
    key = _key(args, exec_)
    with _lock:
        fut = _cache.get(key)
    if fut is None:
        fut = concurrent.futures.Future()
        fut.set_result(_run(key))
        with _lock:
            _cache[key] = fut
    return fut.result()


_pool = concurrent.futures.ThreadPoolExecutor(max_workers=3)


def prefetch(arg_lists, exec_=False):
    """Starts the given runs in the background; run_worker later returns their results."""
    if not HAVE_TORCH:
        return  # the tests that need them are skipped
    for args in arg_lists:
        key = _key(args, exec_)
        with _lock:
            if key not in _cache:
                _cache[key] = _pool.submit(_run, key)


def kb(problem_name, candidate_name, *extra):
    return ("kernelbench", "--problem", problem(problem_name), "--candidate", candidate(candidate_name),
            "--device", "cpu") + tuple(extra)


def reach(problem_name, candidate_name, *extra):
    return ("reach", "--problem", problem(problem_name), "--candidate", candidate(candidate_name),
            "--device", "cpu") + tuple(extra)


class WorkerCase(unittest.TestCase):
    EXEC = False  # True: real `python3 reach_kbworker.py` for every job of the class

    def ok_json(self, args):
        r = run_worker(*args, exec_=self.EXEC)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIsNotNone(r.json, f"stdout is not one strict JSON object ({r.json_error})\n" + r.describe())
        return r.json

    def assertReason(self, result, prefix):
        reasons = result.get("reasons", [])
        self.assertTrue(any(x.startswith(prefix) for x in reasons),
                        f"no reason starting with {prefix!r} in {reasons}")

    def assertNoReason(self, result, prefix):
        reasons = result.get("reasons", [])
        self.assertFalse(any(x.startswith(prefix) for x in reasons),
                         f"unexpected reason {prefix!r} in {reasons}")
