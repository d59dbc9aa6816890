# A candidate that, at import, leaves a double-forked daemon in a session of its own (setsid),
# which sleeps and then writes a file: issue 36's escape from a job run through the warm worker
# server. Where $REACH_TEST_DAEMON_DIR is set, the daemon writes its pid there at once
# ("pid-<pid>") and "late-<pid>" after three seconds, so a test can tell whether it outlived its
# job. Where $REACH_TEST_KILL_PARENT=1 it then SIGKILLs its parent process (run as KernelBench's
# worker through the server: the job's keeper), so that its processes lose their keeper. Otherwise
# it computes the right answer.
import os
import signal
import time

import torch.nn as nn


def _daemon():
    folder = os.environ.get("REACH_TEST_DAEMON_DIR")
    if os.fork() != 0:
        return
    try:
        os.setsid()
        if os.fork() == 0:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                os.dup2(null.fileno(), 2)
            if folder:
                with open(os.path.join(folder, f"pid-{os.getpid()}"), "w") as f:
                    f.write(str(os.getpid()))
            time.sleep(3)
            if folder:
                with open(os.path.join(folder, f"late-{os.getpid()}"), "w") as f:
                    f.write("still here")
            time.sleep(60)
    finally:
        os._exit(0)


_daemon()
time.sleep(0.2)  # the daemon has written its pid before the job can end
if os.environ.get("REACH_TEST_KILL_PARENT") == "1":
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(60)


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a + b
