#!/usr/bin/env python3
"""A warm start for the KernelBench-format worker: PyTorch imported once, each job still a fresh process.

    python3 reach_kbserver.py --control-fd N [--idle-exit SECONDS]

`import torch` is 2.6-4.4 s of every worker job on the H200 machine, and a KernelBench-format
verify runs two jobs. This server imports PyTorch (and Dynamo, the profiler and the FLOP
counter, which each job's runner and judge import next: another 4.4 s; never CUDA: no tensor is
made here, so no device context and no thread pool exist when it forks), and for each job forks a
child that runs reach_kbworker.py as `__main__`, exactly as `python3 reach_kbworker.py ARGS`
would after its imports. The child is a new process with nothing of an earlier job in it (the
server never loads a candidate or a problem, and does not import the worker's package, so the
child reads the worker's current code from disk).

Who may talk to it (issue 36: a server found by a socket path was taken over by a candidate's
leftover process, which then answered later jobs with forged passing documents). There is no
path: the owner (core/verify/workerserver.cpp: the GUI, a batch) starts the server with one end
of a socket pair it made, the control line, as descriptor N. Over it the owner sends, for each
reach-verify it starts, one end of a new connection (SCM_RIGHTS, one descriptor per message);
the other end goes to that reach-verify alone, inherited. The server tells the owner
{"ready": true} on the control line once its imports are done. It exits when the control line
closes (the owner is gone) or after --idle-exit seconds without a job (default 1800).

Protocol on a connection (core/verify/workerserver.cpp is the client). Requests come one after
another, each a 4-byte big-endian length and a JSON object:
- a job: {"argv": [...], "env": {...}, "cwd": D} with three file descriptors attached
  (SCM_RIGHTS) that become the job's stdin, stdout and stderr. The server answers with JSON
  lines: {"started": true}, then {"exit": N} or {"signal": N} once the job and everything it
  started are gone; or {"refused": "why"} instead (a bad request; or the server's PyTorch is not
  the installed one any more: the server then exits once its jobs are done), after which the
  server closes the connection and the client starts the worker itself.
- {"kill": true} while a job runs: the job is killed with everything it started, and reported.
A closed connection kills its job. The server never sends a pid: the client signals nothing.

Nothing a job starts outlives it. Each job is a KEEPER, forked from the server, that keeps only
the job's three descriptors and a status pipe to the server and becomes a child subreaper; it
forks the WORKER (setsid), the only process that runs anything of the job's. When the worker
ends, or the server asks (SIGTERM: a kill request, a closed connection, the server leaving), the
keeper kills every process left below it (orphans of double-forked daemons are re-parented to
it), then reports the worker's status. The server is a child subreaper too and kills every child
of its own that is not a keeper (what escaped a keeper that died). The server and its keepers are
non-dumpable: no process of the user's can ptrace them or open their descriptors through
/proc/<pid>/fd (REACH_DEBUG_DUMPABLE=1 keeps them dumpable, for a debugger).

The owner's side is here too (OwnedServer), for the Python tests and scripts/device.
"""

import argparse
import ctypes
import fcntl
import importlib.metadata
import json
import os
import runpy
import selectors
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reach_kbworker.py")
MAX_REQUEST = 1 << 20
KEEPER_SWEEP_S = 10.0  # a keeper's budget to kill what its job left
LEAVE_S = 5.0  # the server's budget, when it leaves, for its keepers to finish

# prctl, as reach_kb/procwatch.py has it: written again here because the server must not import
# the worker's package (a job reads the worker's current code from disk, docstring above).
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


def _installed_torch():
    try:
        return importlib.metadata.version("torch")
    except Exception:
        return None


def _proc_table():
    """{pid: (state, ppid)} of every process, from /proc (what the kernel says, not a job)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold either: split after the last one.
        rest = data[data.rfind(b")") + 2:].split()
        if len(rest) >= 2:
            out[int(name)] = (rest[0].decode("ascii", "replace"), int(rest[1]))
    return out


def _descendants(pid):
    """Live (not zombie) processes below `pid`, by the parent links the kernel keeps."""
    children = {}
    for p, (state, ppid) in _proc_table().items():
        children.setdefault(ppid, []).append((p, state))
    found, todo = [], [pid]
    while todo:
        for c, state in children.get(todo.pop(), []):
            if state != "Z":
                found.append(c)
            todo.append(c)
    return found


def _children(pid):
    """Live children of `pid`: its threads' `children` files, or /proc when the kernel has none."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
        kids = []
        for tid in tids:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(x) for x in f.read().split()]
        return kids
    except (OSError, ValueError):
        return [p for p, (state, ppid) in _proc_table().items() if ppid == pid and state != "Z"]


def _reap_all():
    """Reaps every child that has ended; True while some child (live or not) is left."""
    while True:
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if got == 0:
            return True


def _kill_descendants(me):
    for p in _descendants(me):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def _kill_below(me, budget_s):
    """SIGKILLs every process below `me` and reaps them (orphans arrive here as their parents
    die: `me` is their subreaper) until no child is left or the budget is spent."""
    deadline = time.monotonic() + budget_s
    while True:
        _kill_descendants(me)
        if not _reap_all() or time.monotonic() > deadline:
            return
        time.sleep(0.005)


def _close_all_but_stdio_and(keep):
    """Closes every descriptor above `keep` (those this process inherited from the server)."""
    try:
        open_fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = range(keep + 1, 65536)
    for fd in open_fds:
        if fd > keep:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own descriptor, or one already closed


def _status_of(status):
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1}


def _worker(req):
    """In the worker (the keeper's child): become the job, run the worker, never return."""
    code = 1
    try:
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a keeper killed by its job takes the job along
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in req.get("env", {}).items()})
        if req.get("cwd"):
            os.chdir(req["cwd"])
        sys.argv = [WORKER] + [str(a) for a in req["argv"]]
        # Fresh standard streams on the job's descriptors (the server's went to /dev/null).
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sig in (signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        try:
            runpy.run_path(WORKER, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _keeper(req, fds, status_w, server_pid):
    """In the keeper (forked from the server): run one job in a worker below it, kill everything
    the job left, report the worker's status on the status pipe, never return. It loads nothing:
    the only code that runs here is this function."""
    code = 0
    report_fd = status_w
    try:
        # Nothing of the server's stays: not the control line, not another client's connection,
        # not the listening state. The job's descriptors become 0, 1, 2, the status pipe 3.
        # SIGTERM and SIGCHLD stay blocked (the server blocked them around the fork): they are
        # taken with sigtimedwait below, never by a handler of the server's.
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # Above every number they are moved to, so that no dup2 below overwrites one of them.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in list(fds) + [status_w]]
        for target, fd in zip((0, 1, 2, 3), high):
            os.dup2(fd, target)
        report_fd = 3
        _close_all_but_stdio_and(3)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # the server gone: clean up, then go
        if os.getppid() != server_pid:
            os._exit(1)
        worker = os.fork()
        if worker == 0:
            os.close(3)
            _worker(req)
        # The job's pipes are held by the job alone: their end is the job's (and its children's) end.
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)
        os.close(null)
        ended = None
        killed = False
        while ended is None:
            got = signal.sigtimedwait({signal.SIGTERM, signal.SIGCHLD}, 1.0)
            if got is not None and got.si_signo == signal.SIGTERM and not killed:
                killed = True
                for target in (-worker, worker):
                    try:
                        os.kill(target, signal.SIGKILL)
                    except OSError:
                        pass
            while True:
                try:
                    pid, st = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    pid = 0
                if pid == 0:
                    break
                if pid == worker:
                    ended = st
            if killed:
                _kill_descendants(os.getpid())  # reaped above, where the worker is told apart
        _kill_below(os.getpid(), KEEPER_SWEEP_S)
        msg = _status_of(ended)
    except BaseException as e:  # noqa: BLE001 - a keeper that failed still reports
        msg = {"exit": 3, "keeper_error": repr(e)}
        code = 1
        try:
            _kill_below(os.getpid(), KEEPER_SWEEP_S)
        except BaseException:  # noqa: BLE001
            pass
    try:
        os.write(report_fd, (json.dumps(msg) + "\n").encode())
    except OSError:
        pass
    os._exit(code)


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.fds = []
        self.job = None  # the Job running for this connection


class Job:
    def __init__(self, keeper, status_r, conn):
        self.keeper = keeper
        self.status_r = status_r
        self.conn = conn  # None once the client is gone
        self.status = b""
        self.term_sent = None  # when the keeper was asked to stop
        self.done = False  # reported (or found dead) and its status pipe closed

    def stop(self):
        if self.term_sent is None:
            self.term_sent = time.monotonic()
            try:
                os.kill(self.keeper, signal.SIGTERM)
            except OSError:
                pass


class Server:
    def __init__(self, control_fd, idle_exit):
        self.control = socket.socket(fileno=control_fd)
        os.set_inheritable(control_fd, False)
        self.idle_exit = idle_exit
        self.sel = selectors.DefaultSelector()
        self.conns = set()
        self.jobs = {}  # keeper pid -> Job
        self.last_busy = time.monotonic()
        self.torch_version = None
        self.leaving = False

    def load(self):
        import torch  # noqa: F401  (the point of the server: paid once)
        self.torch_version = torch.__version__.split("+")[0]
        # What every job imports next, paid once too: the runner imports Dynamo and the profiler
        # at its hello (their imports rebind torch attributes, which must be in the snapshot the
        # candidate's patches are measured against), the judge's FLOP counter pulls Dynamo in.
        # 4.4 s of Dynamo's import on the H200, twice per warm re-verify (docs/measurements/
        # 2026-12-04-the-calibration-loop-and-the-warm-reverify.md). Neither touches CUDA (measured there: the context is
        # still uncreated, and a child forked after them makes its own in 0.4 s).
        # (The list is the worker's: reach_kb/environment.py RUNNER_MODULES; the server does
        # not import the worker's package, so that a job reads its current code from disk.)
        for name in ("torch._dynamo", "torch.profiler", "torch.utils.flop_counter"):
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - an older PyTorch without it: the job imports it
                pass

    def stale(self):
        installed = _installed_torch()
        if installed and installed.split("+")[0] != self.torch_version:
            return f"PyTorch {installed} is installed, this server imported {self.torch_version}"
        return None

    def serve(self):
        self.control.setblocking(False)
        self.sel.register(self.control, selectors.EVENT_READ, "control")
        self._tell_owner({"ready": True})
        while not self.leaving:
            for key, _ in self.sel.select(timeout=0.25):
                if key.data == "control":
                    self.from_owner()
                elif isinstance(key.data, Connection):
                    self.from_client(key.data)
                else:
                    self.from_keeper(key.data)
            self.reap()
            self.sweep()
            self.overdue()
            if self.jobs:
                self.last_busy = time.monotonic()
            elif time.monotonic() - self.last_busy > self.idle_exit:
                break

    def _tell_owner(self, msg):
        try:
            self.control.send(json.dumps(msg).encode())
        except OSError:
            pass

    def from_owner(self):
        try:
            msg, fds, _flags, _addr = socket.recv_fds(self.control, 64, 4)
        except BlockingIOError:
            return
        except OSError:
            msg, fds = b"", []
        if not msg and not fds:
            self.leaving = True  # the owner is gone: so are its jobs and this server
            return
        for fd in fds:
            try:
                sock = socket.socket(fileno=fd)
            except OSError:
                os.close(fd)
                continue
            if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
                sock.close()
                continue
            sock.setblocking(False)
            conn = Connection(sock)
            self.conns.add(conn)
            self.sel.register(sock, selectors.EVENT_READ, conn)

    def drop(self, conn):
        """The client is gone or broke the protocol: its job is killed, its connection closed."""
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        try:
            self.sel.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()
        for fd in conn.fds:
            os.close(fd)
        conn.fds = []
        if conn.job is not None:
            conn.job.conn = None
            conn.job.stop()
            conn.job = None

    def from_client(self, conn):
        try:
            data, fds, _flags, _addr = socket.recv_fds(conn.sock, 65536, 8)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        conn.fds += fds
        if not data:
            self.drop(conn)
            return
        conn.buf += data
        while len(conn.buf) >= 4:
            n = struct.unpack(">I", conn.buf[:4])[0]
            if n > MAX_REQUEST:
                self.refuse(conn, "bad request: request too large")
                return
            if len(conn.buf) < 4 + n:
                return
            body, conn.buf = conn.buf[4:4 + n], conn.buf[4 + n:]
            try:
                msg = json.loads(body)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg.get("kill") is True:
                if conn.job is not None:
                    conn.job.stop()
                continue
            if conn.job is not None:
                self.drop(conn)  # a second job on a busy connection: not the protocol
                return
            if not isinstance(msg, dict) or not isinstance(msg.get("argv"), list) or len(conn.fds) != 3:
                self.refuse(conn, "bad request: expected argv and three descriptors")
                return
            job_fds, conn.fds = conn.fds, []
            why = self.stale()
            if why:
                for fd in job_fds:
                    os.close(fd)
                self.idle_exit = 0  # finish the running jobs, then go: a new server imports the new one
                self.refuse(conn, why)
                return
            self.start(conn, msg, job_fds)

    def refuse(self, conn, why):
        self._send(conn, {"refused": why})
        self.drop(conn)

    def start(self, conn, req, fds):
        status_r, status_w = os.pipe()
        server_pid = os.getpid()
        # Blocked before the fork: the keeper takes SIGTERM (its stop) only where it waits for it.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})
        try:
            keeper = os.fork()
            if keeper == 0:
                _keeper(req, fds, status_w, server_pid)  # never returns
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(status_w)
        for fd in fds:
            os.close(fd)
        os.set_blocking(status_r, False)
        job = Job(keeper, status_r, conn)
        self.jobs[keeper] = job
        conn.job = job
        self.sel.register(status_r, selectors.EVENT_READ, job)
        self._send(conn, {"started": True})
        self.last_busy = time.monotonic()

    def from_keeper(self, job):
        if job.done:
            return
        try:
            data = os.read(job.status_r, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            job.status += data
            if b"\n" not in job.status:
                return
        self.finish(job)

    def finish(self, job):
        """The keeper reported (or died without a word: its job is ended by the server's sweep)."""
        job.done = True
        conn = job.conn
        job.conn = None
        try:
            self.sel.unregister(job.status_r)
        except (KeyError, ValueError):
            pass
        os.close(job.status_r)
        try:
            report = json.loads(job.status.split(b"\n")[0])
            msg = ({"exit": int(report["exit"])} if "exit" in report
                   else {"signal": int(report["signal"])})
        except (ValueError, KeyError, TypeError):
            # The keeper was killed (by its own job, say): the job did not end by itself, and
            # what it started came back here, to be killed before the client hears of it.
            msg = {"signal": signal.SIGKILL}
            deadline = time.monotonic() + KEEPER_SWEEP_S
            # The status pipe closes before the dying keeper's children are handed to the server
            # (the kernel closes a process's files before it re-parents its children): until the
            # keeper is a zombie, what it kept is not the server's yet and a sweep finds nothing.
            # Measured in CI: the daemon of a keeper killed by its job outlived the report.
            self._wait_reaped(job.keeper, deadline)
            while self.sweep() and time.monotonic() < deadline:
                self.reap()
                time.sleep(0.005)
        if conn is not None and conn.job is job:
            conn.job = None
            self._send(conn, msg)
        # The keeper is reaped by reap(); until then it counts as running.

    def _wait_reaped(self, keeper, deadline):
        """Reaps `keeper` (killed, so it is on its way) once it has ended, within the deadline."""
        while time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(keeper, os.WNOHANG)
            except ChildProcessError:
                return  # reaped already (reap() saw it go)
            if pid:
                self.jobs.pop(keeper, None)
                return
            time.sleep(0.005)

    def reap(self):
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.pop(pid, None)
            if job is not None:
                self.from_keeper(job)  # what it wrote before it went, or its death

    def sweep(self):
        """Kills every child of the server that is not a keeper: the orphan of a keeper that died
        comes here (the server is their subreaper) and must not outlive its job. Returns how
        many it found."""
        found = [pid for pid in _children(os.getpid()) if pid not in self.jobs]
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return len(found)

    def overdue(self):
        """A keeper asked to stop that has not reported well past its own budget is killed: its
        job's processes then come here, to the sweep, and the client hears {"signal": 9}."""
        now = time.monotonic()
        for pid, job in self.jobs.items():
            if job.term_sent is not None and now - job.term_sent > KEEPER_SWEEP_S + 5:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    @staticmethod
    def _send(conn, msg):
        try:
            conn.sock.settimeout(5)  # a client that reads nothing does not stall the others long
            conn.sock.sendall((json.dumps(msg) + "\n").encode())
            conn.sock.setblocking(False)
        except OSError:
            pass

    def close(self):
        """Ends every job (its keeper kills what it started) before the server goes."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut this short
        for job in self.jobs.values():
            job.stop()
        deadline = time.monotonic() + LEAVE_S
        while self.jobs and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.01)
        for pid in list(self.jobs):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        # Whatever came back here (the orphans of a keeper killed just now) goes too.
        _kill_below(os.getpid(), 2.0)
        for conn in list(self.conns):
            conn.sock.close()
        self.control.close()


def main(argv):
    ap = argparse.ArgumentParser(prog="reach_kbserver.py")
    ap.add_argument("--control-fd", type=int, required=True,
                    help="the owner's end of the control line (inherited)")
    ap.add_argument("--idle-exit", type=float, default=1800.0)
    args = ap.parse_args(argv)
    # Before anything else: no process of the user's may ptrace this one or take its descriptors
    # (the control line, the clients' connections) through /proc/<pid>/fd; its keepers inherit it.
    if os.environ.get("REACH_DEBUG_DUMPABLE") != "1":
        _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        fstat = os.fstat(args.control_fd)
    except OSError as e:
        print(f"--control-fd {args.control_fd}: {e.strerror}", file=sys.stderr)
        return 2
    if not stat.S_ISSOCK(fstat.st_mode):
        print(f"--control-fd {args.control_fd}: not a socket", file=sys.stderr)
        return 2
    server = Server(args.control_fd, args.idle_exit)
    try:
        server.load()
    except ImportError:
        print(f"{sys.executable}: no PyTorch in this Python (import torch failed)", file=sys.stderr)
        return 2
    try:
        server.serve()
    finally:
        server.close()
    return 0


class OwnedServer:
    """The owner's side, in Python (the tests, scripts/device): starts a server on a control
    line this process made, and makes one connection per reach-verify (or per test job)."""

    def __init__(self, python=sys.executable, env=None, idle_exit=None, wait_s=120.0):
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        cmd = [python, os.path.abspath(__file__), "--control-fd", str(theirs.fileno())]
        if idle_exit is not None:
            cmd += ["--idle-exit", str(idle_exit)]
        self.proc = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.pid = self.proc.pid
        self.control.settimeout(wait_s)
        try:
            msg = self.control.recv(64)
        except socket.timeout:
            msg = b""
        if not msg or not json.loads(msg).get("ready"):
            self.close()
            raise RuntimeError(f"the worker server did not start (exit {self.proc.poll()})")
        self.control.settimeout(None)

    def connect(self):
        """A new connection to the server: this process's end (a socket, close-on-exec)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [b"c"], [theirs.fileno()])
        finally:
            theirs.close()
        return mine

    def close(self, timeout=30):
        """Closes the control line: the server ends its jobs and leaves."""
        self.control.close()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
