"""The warm worker server (resources/python/reach_kbserver.py) spoken to directly, as its owner and
its clients do: a job's answer on the descriptors it was given, several jobs on one connection, a
malformed request refused; and issue 36's escapes closed: a job whose client goes away or asks for
the kill is killed with everything it started, a daemon the candidate leaves dies before the job
is reported (also when the candidate kills its keeper), nothing a job holds names the server, the
server and its keepers are out of reach through /proc, and the server leaves with its owner."""

import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

from workerutil import (PYDIR, candidate, lines, needs_torch, problem, request, send_kill,
                        start_server)

from reach_kbserver import _descendants


def send_job(conn, argv, env=None):
    """Sends one job on conn; returns the read end of its stdout."""
    r, w = os.pipe()
    ew = os.open(os.devnull, os.O_WRONLY)  # the job's stderr: not read here
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        request(conn, argv, [null, w, ew], env=env)
        return r
    finally:
        for fd in (w, ew, null):
            os.close(fd)


def read_all(fd):
    out = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            os.close(fd)
            return out
        out += chunk


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose (its parent reaps it).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def read_text(path):
    with open(path) as f:
        return f.read()


def daemon_pids(folder):
    """The pids the candidate's daemons wrote (leaves_a_daemon.py)."""
    return [int(read_text(os.path.join(folder, f))) for f in os.listdir(folder) if f.startswith("pid-")]


def settled(pid, timeout=3.0):
    """The processes left below pid once a keeper that just reported has exited."""
    deadline = time.time() + timeout
    while _descendants(pid) and time.time() < deadline:
        time.sleep(0.05)
    return _descendants(pid)


def kb_args(prob, cand):
    return ["kernelbench", "--problem", problem(prob), "--candidate", candidate(cand), "--device", "cpu"]


@needs_torch
class KbServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = start_server()

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def test_a_job_answers_on_its_own_descriptors_and_names_no_pid(self):
        with self.server.connect() as conn:
            out = send_job(conn, kb_args("add_const", "add_correct"))
            doc = json.loads(read_all(out))
            self.assertEqual(lines(conn), [{"started": True}, {"exit": 0}])
        self.assertTrue(doc["correctness"])
        self.assertLess(doc["phase_seconds"]["import_torch"], 0.05)  # imported by the server

    def test_one_connection_carries_several_jobs_one_after_another(self):
        with self.server.connect() as conn:
            out = send_job(conn, ["probe"])
            read_all(out)
            self.assertEqual(lines(conn)[-1], {"exit": 0})
            out = send_job(conn, kb_args("no_model", "add_correct"))
            doc = json.loads(read_all(out))
            self.assertEqual(lines(conn)[-1], {"exit": 2})  # the worker's own exit status
            self.assertIn("error", doc)

    def test_a_request_without_descriptors_is_refused(self):
        with self.server.connect() as conn:
            body = json.dumps({"argv": ["probe"]}).encode()
            conn.sendall(struct.pack(">I", len(body)) + body)
            self.assertIn("refused", lines(conn)[0])
            self.assertEqual(conn.recv(1), b"")  # and the connection closed
        # The server is still serving.
        with self.server.connect() as conn:
            read_all(send_job(conn, ["probe"]))
            self.assertEqual(lines(conn)[-1], {"exit": 0})

    def test_a_job_whose_client_goes_away_is_killed_with_everything_it_started(self):
        conn = self.server.connect()
        out = send_job(conn, kb_args("23_Softmax", "forward_hangs"))
        self.assertEqual(conn.recv(100), b'{"started": true}\n')
        time.sleep(1.0)
        self.assertTrue(_descendants(self.server.pid), "no job under the server")
        conn.close()
        self.assertEqual(settled(self.server.pid, 10), [], "the hung job outlived its client")
        read_all(out)

    def test_a_kill_request_ends_the_job_which_is_reported_and_the_connection_stays(self):
        with self.server.connect() as conn:
            out = send_job(conn, kb_args("23_Softmax", "forward_hangs"))
            time.sleep(1.0)
            send_kill(conn)
            self.assertEqual(lines(conn), [{"started": True}, {"signal": signal.SIGKILL}])
            read_all(out)  # EOF: nothing holds the job's stdout any more
            self.assertEqual(settled(self.server.pid), [])
            read_all(send_job(conn, ["probe"]))
            self.assertEqual(lines(conn)[-1], {"exit": 0})

    def test_a_daemon_the_candidate_leaves_is_dead_when_its_job_is_reported(self):
        # Issue 36: such a daemon took over the server's socket path and forged later verdicts.
        with tempfile.TemporaryDirectory() as d, self.server.connect() as conn:
            env = dict(os.environ, REACH_TEST_DAEMON_DIR=d)
            out = send_job(conn, kb_args("add_random", "leaves_a_daemon"), env=env)
            self.assertTrue(json.loads(read_all(out))["correctness"])
            self.assertEqual(lines(conn)[-1], {"exit": 0})
            pids = daemon_pids(d)
            self.assertEqual(len(pids), 1)
            self.assertFalse(alive(pids[0]), "the daemon outlived its job")
            self.assertEqual(settled(self.server.pid), [])
            # It writes "late-<pid>" 3 s after it started: while its job still ran is no escape.
            late = [f for f in os.listdir(d) if f.startswith("late-")]
            time.sleep(3.5)  # the daemon would write now
            self.assertEqual([f for f in os.listdir(d) if f.startswith("late-")], late)

    def test_a_candidate_that_kills_its_keeper_still_leaves_nothing_behind(self):
        with tempfile.TemporaryDirectory() as d, self.server.connect() as conn:
            env = dict(os.environ, REACH_TEST_DAEMON_DIR=d, REACH_TEST_KILL_PARENT="1")
            out = send_job(conn, kb_args("add_random", "leaves_a_daemon"), env=env)
            # The server sweeps the orphans (it is their subreaper now) before it reports.
            self.assertEqual(lines(conn), [{"started": True}, {"signal": signal.SIGKILL}])
            read_all(out)
            pids = daemon_pids(d)
            self.assertEqual(len(pids), 1)
            self.assertFalse(alive(pids[0]), "the daemon outlived its keeper")
            self.assertEqual(settled(self.server.pid), [])
            # It writes "late-<pid>" 3 s after it started: while its job still ran is no escape.
            late = [f for f in os.listdir(d) if f.startswith("late-")]
            time.sleep(3.5)
            self.assertEqual([f for f in os.listdir(d) if f.startswith("late-")], late)

    def test_a_job_holds_nothing_that_names_the_server(self):
        with tempfile.TemporaryDirectory() as d, self.server.connect() as conn:
            env = {k: v for k, v in os.environ.items() if not k.startswith("REACH_KB_SERVER")}
            env["REACH_TEST_REPORT_DIR"] = d
            out = send_job(conn, kb_args("add_random", "reports_its_reach"), env=env)
            read_all(out)
            self.assertEqual(lines(conn)[-1], {"exit": 0})
            [report] = [json.loads(read_text(os.path.join(d, f))) for f in os.listdir(d)]
        # The candidate runs in KernelBench's worker: no socket there (the control line and the
        # clients' connections stay in the server), no variable of the server's.
        self.assertEqual(report["argv"], ["kernelbench"])
        self.assertFalse([k for k in report["env"] if k.startswith("REACH_KB_SERVER")])
        sockets = {fd: t for fd, t in report["fds"].items() if t.startswith("socket:")}
        self.assertEqual(sockets, {})
        self.assertEqual(report["fds"]["0"], "/dev/null")

    # Run without any capability, as a candidate's runner is (procwatch.drop_privileges): the
    # server it starts, a keeper of a hung job and, for comparison, a `sleep` of its own, all
    # without capabilities too (else root's capabilities alone would keep it out, dumpable or
    # not). What it can take through /proc/<pid>/fd: the descriptors' targets (readlink, as open
    # does, needs the access a non-dumpable process refuses).
    LAB = ("import json, os, socket, struct, subprocess, sys, time; sys.path.insert(0, sys.argv[1])\n"
           "from reach_kb import procwatch; import reach_kbserver as k\n"
           "notes = procwatch.drop_privileges()\n"
           "def reachable(pid):\n"
           "    try:\n"
           "        return [os.readlink(f'/proc/{pid}/fd/{n}') for n in os.listdir(f'/proc/{pid}/fd')] != []\n"
           "    except PermissionError:\n"
           "        return False\n"
           "s = k.OwnedServer(); sleep = subprocess.Popen(['sleep', '30']); c = s.connect()\n"
           "b = json.dumps({'argv': sys.argv[2:], 'env': dict(os.environ), 'cwd': os.getcwd()}).encode()\n"
           "n = os.open(os.devnull, os.O_RDWR)\n"
           "socket.send_fds(c, [struct.pack('>I', len(b)) + b], [n, n, n]); c.recv(100); time.sleep(1)\n"
           "keepers = [p for p in k._children(s.pid)]\n"
           "out = {'notes': notes, 'control': reachable(sleep.pid), 'server': reachable(s.pid),\n"
           "       'keepers': [reachable(p) for p in keepers]}\n"
           "sleep.kill(); c.close(); s.close(); print(json.dumps(out))\n")

    def test_the_server_and_its_keepers_are_out_of_reach_through_proc(self):
        lab = subprocess.run([sys.executable, "-c", self.LAB, PYDIR] +
                             kb_args("23_Softmax", "forward_hangs"),
                             capture_output=True, text=True, timeout=180)
        report = json.loads(lab.stdout)
        self.assertEqual(report["notes"], [])
        self.assertTrue(report["control"], "the check does not work: a dumpable process was out of reach")
        self.assertFalse(report["server"], "the server is dumpable")
        self.assertEqual(report["keepers"], [False], "a keeper is dumpable")


@needs_torch
class KbServerOwner(unittest.TestCase):
    # An owner that starts a server, gives a hung job a connection, prints the server's pid and
    # dies without a word.
    OWNER = ("import os, sys, json, struct, socket; sys.path.insert(0, sys.argv[1]); "
             "import reach_kbserver as k; s = k.OwnedServer(); c = s.connect(); "
             "b = json.dumps({'argv': sys.argv[2:], 'env': dict(os.environ), 'cwd': os.getcwd()}).encode(); "
             "n = os.open(os.devnull, os.O_RDWR); "
             "socket.send_fds(c, [struct.pack('>I', len(b)) + b], [n, n, n]); c.recv(100); "
             "print(s.pid, flush=True); os._exit(0)")
    # Its parent, a subreaper: whatever the owner's server and job leave comes back to it, where
    # it can be seen. It prints what is left once the server is gone.
    WATCH = ("import json, os, subprocess, sys, time; sys.path.insert(0, sys.argv[1]); "
             "import reach_kbserver as k; k._prctl(k.PR_SET_CHILD_SUBREAPER, 1)\n"
             "owner = subprocess.run([sys.executable, '-c', sys.argv[2]] + sys.argv[1:2] + sys.argv[3:], "
             "capture_output=True, text=True, timeout=120)\n"
             "pid = int(owner.stdout)\n"
             "def reap():\n"
             "    try:\n        while os.waitpid(-1, os.WNOHANG)[0] > 0: pass\n"
             "    except ChildProcessError: pass\n"
             "deadline = time.time() + 30\n"
             "while time.time() < deadline and pid in [pid for pid in k._descendants(os.getpid())]:\n"
             "    reap(); time.sleep(0.05)\n"
             "time.sleep(0.5); reap()\n"
             "print(json.dumps({'server': pid, 'left': k._descendants(os.getpid())}))\n")

    def test_the_server_leaves_with_its_running_jobs_when_its_owner_does(self):
        watch = subprocess.run([sys.executable, "-c", self.WATCH, PYDIR, self.OWNER] +
                               kb_args("23_Softmax", "forward_hangs"),
                               capture_output=True, text=True, timeout=180)
        report = json.loads(watch.stdout)
        self.assertNotIn(report["server"], report["left"], "the server outlived its owner")
        self.assertEqual(report["left"], [], "the owner's job outlived it")

    def test_an_idle_server_leaves_and_its_owner_sees_the_control_line_close(self):
        server = start_server(idle_exit=1)
        try:
            server.control.settimeout(30)
            self.assertEqual(server.control.recv(64), b"")
            server.proc.wait(timeout=30)
        finally:
            server.close()


if __name__ == "__main__":
    unittest.main()
