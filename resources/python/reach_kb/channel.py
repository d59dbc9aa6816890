"""The judge's line to the runner: one message per datagram (a Unix SOCK_SEQPACKET socketpair).

A message is one JSON object, at most MAX_MESSAGE bytes, with up to MAX_FDS descriptors attached
(SCM_RIGHTS: how shared buffers cross). The runner is hostile: whatever it sends is read as a
claim, never as a verdict, and a message that is too long, not JSON, not an object, or carries
descriptors it should not is a protocol error that ends the job for the candidate. The judge
waits for each answer with a deadline; a runner that goes silent is a timeout, one that dies
is gone (RunnerGone).
"""

import json
import math
import os
import select
import socket
import time

# A datagram must fit the socket's buffer (net.core.wmem_max, 208 KiB by default): messages are
# claims and commands, so 128 KiB is plenty; long texts (a compile log) are cut by the sender.
MAX_MESSAGE = 128 << 10
# One descriptor per shared tensor: a problem's inputs and outputs cross in one message (a
# multi-table embedding has ten). Linux allows 253 per message (SCM_MAX_FD).
MAX_FDS = 64


class ProtocolError(Exception):
    """The other side sent something that is not a message of this protocol."""


class RunnerGone(Exception):
    """The other side closed its end (it exited, crashed or was killed)."""


class Silent(Exception):
    """No answer before the deadline."""


def pair():
    """(judge end, runner end), both close-on-exec."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    return a, b


def _no_constants(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _finite(value):
    """Rejects NaN/Infinity anywhere in a decoded message (json allows them by default)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


class Channel:
    def __init__(self, sock):
        self.sock = sock

    def fileno(self):
        return self.sock.fileno()

    def send(self, obj, fds=()):
        data = json.dumps(obj, allow_nan=False).encode("utf-8")
        if len(data) > MAX_MESSAGE:
            raise ProtocolError(f"message of {len(data)} bytes is longer than {MAX_MESSAGE}")
        try:
            if fds:
                socket.send_fds(self.sock, [data], list(fds))
            else:
                self.sock.send(data)
        except (BrokenPipeError, ConnectionResetError):
            raise RunnerGone("the other side closed the channel")

    def recv(self, timeout=None, max_fds=0):
        """(message dict, [fds]). `timeout` in seconds (None: wait for ever)."""
        if timeout is not None:
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Silent(f"no answer in {timeout:.0f} s")
                try:
                    ready, _, _ = select.select([self.sock], [], [], left)
                except InterruptedError:
                    continue
                if ready:
                    break
        try:
            data, fds, flags, _ = socket.recv_fds(self.sock, MAX_MESSAGE + 1, MAX_FDS)
        except (ConnectionResetError, OSError) as e:
            raise RunnerGone(f"channel: {e}")
        if not data and not fds:
            raise RunnerGone("the other side closed the channel")
        if len(fds) > max_fds or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            for fd in fds:
                os.close(fd)
            raise ProtocolError("a message too long, or with descriptors it should not carry")
        if len(data) > MAX_MESSAGE:
            for fd in fds:
                os.close(fd)
            raise ProtocolError(f"a message longer than {MAX_MESSAGE} bytes")
        try:
            obj = json.loads(data.decode("utf-8"), parse_constant=_no_constants)
        except (UnicodeDecodeError, ValueError) as e:
            for fd in fds:
                os.close(fd)
            raise ProtocolError(f"a message that is not JSON ({e})")
        if not isinstance(obj, dict) or not _finite(obj):
            for fd in fds:
                os.close(fd)
            raise ProtocolError("a message that is not a JSON object of finite numbers")
        return obj, fds

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
