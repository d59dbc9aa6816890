"""The warm worker server (resources/python/reach_kbserver.py) spoken to directly: a job's answer
on the descriptors it was given, a malformed request refused, a job whose client goes away
killed, and the server gone with its socket once its owner is."""

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

from workerutil import SERVER, candidate, lines, needs_torch, problem, request, start_server


def send_job(sock_path, argv, env=None):
    """Sends one job; returns (socket, stdout read end)."""
    r, w = os.pipe()
    ew = os.open(os.devnull, os.O_WRONLY)  # the job's stderr: not read here
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        return request(sock_path, argv, [null, w, ew], env=env), r
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


@needs_torch
class KbServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.sock = os.path.join(cls.tmp.name, "s.sock")
        cls.proc = start_server(cls.sock)

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        cls.proc.wait(timeout=30)
        cls.proc.stdout.close()
        cls.tmp.cleanup()

    def test_a_job_answers_on_its_own_descriptors(self):
        s, out = send_job(self.sock, ["kernelbench", "--problem", problem("add_const"),
                                     "--candidate", candidate("add_correct"), "--device", "cpu"])
        doc = json.loads(read_all(out))
        msgs = lines(s)
        self.assertIn("pid", msgs[0])
        self.assertEqual(msgs[-1], {"exit": 0})
        self.assertTrue(doc["correctness"])
        self.assertLess(doc["phase_seconds"]["import_torch"], 0.05)  # imported by the server

    def test_bad_input_keeps_the_workers_exit_status(self):
        s, out = send_job(self.sock, ["kernelbench", "--problem", problem("no_model"),
                                     "--candidate", candidate("add_correct"), "--device", "cpu"])
        doc = json.loads(read_all(out))
        self.assertEqual(lines(s)[-1], {"exit": 2})
        self.assertIn("error", doc)

    def test_a_request_without_descriptors_is_refused(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.sock)
        body = json.dumps({"argv": ["probe"]}).encode()
        s.sendall(struct.pack(">I", len(body)) + body)
        self.assertIn("refused", lines(s)[0])
        # The server is still serving.
        s2, out = send_job(self.sock, ["probe"])
        read_all(out)
        self.assertEqual(lines(s2)[-1], {"exit": 0})

    def test_a_job_whose_client_goes_away_is_killed(self):
        s, out = send_job(self.sock, ["kernelbench", "--problem", problem("23_Softmax"),
                                     "--candidate", candidate("forward_hangs"), "--device", "cpu"])
        buf = b""
        while b"\n" not in buf:
            buf += s.recv(100)
        pid = json.loads(buf.split(b"\n")[0])["pid"]
        time.sleep(1.0)
        self.assertTrue(alive(pid))
        s.close()
        deadline = time.time() + 10
        while alive(pid) and time.time() < deadline:
            time.sleep(0.1)
        self.assertFalse(alive(pid), "the hung job outlived its client")
        read_all(out)


@needs_torch
class KbServerOwner(unittest.TestCase):
    def test_the_server_leaves_when_its_owner_does(self):
        with tempfile.TemporaryDirectory() as d:
            sock = os.path.join(d, "s.sock")
            # An owner shell that starts the server in the background and exits at once.
            owner = subprocess.run(["sh", "-c", f'"{sys.executable}" "{SERVER}" --socket "{sock}" '
                                                f'--owner $$ >/dev/null 2>&1 & echo $!'],
                                   capture_output=True, text=True, timeout=30)
            pid = int(owner.stdout.strip())
            deadline = time.time() + 60
            while alive(pid) and time.time() < deadline:
                time.sleep(0.2)
            self.assertFalse(alive(pid), "the server outlived its owner")
            self.assertFalse(os.path.exists(sock))


if __name__ == "__main__":
    unittest.main()
