# Red team (issue 36, B4d): a thread started when the candidate is loaded (the judge's `threads`
# check counts only threads started since the first call) watches the shared input buffers (found
# in its process: Reach's runner holds them as tensors) and starts on new inputs the moment the
# judge has written them, before the judge's clock starts: 30 ms (a sleep, a CPU stand-in for a
# long kernel), then the sum. A profile hook in the runner's main thread (sys.setprofile: on the
# return of the runner's read of the judge's request) waits for that thread before the runner
# starts its clock, and forward returns the answer at once. The runner's clock misses the work;
# the judge's sees all but its head start, and the clock agreement's allowance grows with the
# spread of the candidate's own gaps (B3), which it makes with honest clocks: in 3 calls of 10
# forward does the work inside the clock (gap ~0), in 3 the thread's 30 ms are ahead of it (gap
# ~30 ms), in 4 the hook waits 45 ms more (gap ~75 ms). Must get: fail (clock_agreement; threads).
import gc
import json
import sys
import threading
import time

import torch
import torch.nn as nn

WORK_S = 0.03


def _runner():
    mod = sys.modules.get("reach_kb.runner")
    if mod is None:
        return None
    for o in gc.get_objects():
        if type(o) is getattr(mod, "Runner", None):
            return o
    return None


def _fingerprint(tensors):
    return tuple(tuple(t.reshape(-1)[:4].tolist()) for t in tensors)


class Ahead:
    def __init__(self, inputs):
        self.inputs = inputs
        self.lock = threading.Lock()
        self.result = None
        self.result_of = None
        self.ready = None  # what forward returns at once for this call, or None
        self.calls = 0
        threading.Thread(target=self.watch, daemon=True).start()
        sys.setprofile(self.hook)  # the runner's main thread (the candidate is imported there)

    def watch(self):
        last = _fingerprint(self.inputs)
        while True:
            time.sleep(0.0002)
            now = _fingerprint(self.inputs)
            if now == last:
                continue
            time.sleep(WORK_S)  # the work, from the moment the inputs are there
            last = _fingerprint(self.inputs)
            out = torch.add(*self.inputs)
            with self.lock:
                self.result, self.result_of = out, last

    def hook(self, frame, event, arg):
        if event != "return" or frame.f_code.co_name != "recv_fds" or not isinstance(arg, tuple):
            return
        try:
            msg = json.loads(arg[0].decode("utf-8"))
        except Exception:
            return
        if not isinstance(msg, dict) or msg.get("op") != "run":
            return
        self.ready = None
        self.calls += 1
        phase = self.calls % 10
        if phase < 3:
            return  # forward works inside the runner's clock
        want = _fingerprint(self.inputs)
        give_up = time.perf_counter() + 1.0
        while time.perf_counter() < give_up:  # before the runner reads its clock
            with self.lock:
                if self.result_of == want:
                    self.ready = (self.result, want)
                    break
            time.sleep(0.0002)
        if phase >= 6:
            time.sleep(0.045)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        r = _runner()
        ins = [t for t in (getattr(r, "inputs", None) or []) if isinstance(t, torch.Tensor)]
        self.ahead = Ahead(ins) if len(ins) == 2 else None

    def forward(self, a, b):
        ready = self.ahead.ready if self.ahead is not None else None
        if ready is not None and ready[1] == _fingerprint((a, b)):
            self.ahead.ready = None
            return ready[0]
        time.sleep(WORK_S)  # left to forward: honest, inside the clock
        return a + b
