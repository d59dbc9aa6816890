"""The kernels each problem of a workload's own benchmark launches (reach-cli extract --check).

    python3 reach_problem_kernels.py --device cuda|cpu [--warmup N] [--timeout S] [--jobs N]
                                     FILE...

For each KernelBench-format problem file: build `Model(*get_init_inputs())`, move it and the
tensors of `get_inputs()` to the device (their layouts kept), call it `--warmup` times, then once
under torch.profiler, and list the GPU activities of that call as Kineto records them (kernels,
memcpy, memset: the names the profile the problem came from has). Reach compares them with the
trace's kernels (core/benchmark/kernelmatch.h); this script only reports.

Each problem runs in a child forked from this process after PyTorch's import and before CUDA is
touched, so a problem that faults the device, hangs or exits takes only itself: it is killed
after `--timeout` seconds and reported with why. `--jobs` children run at once (one GPU takes
several: only the names of the kernels are compared, not their times). A problem's own output
goes to stderr; stdout carries one JSON document: {"torch", "device", "device_name",
"problems": [{"file", "ok", "error", "seconds", "kernels": [{"name", "calls", "us"}]}]}.

The files are the ones `reach-cli extract` wrote, run because the user asked for the check.
"""

import argparse
import json
import os
import select
import signal
import sys
import tempfile
import time
import types
import traceback

GPU_ACTIVITIES = ("kernel", "gpu_memcpy", "gpu_memset")
ANSWER_LIMIT = 16 << 20  # a child's answer past this is not an answer


def _load(path):
    """The problem, loaded as reach-verify loads it (reach_kb/loading.py): its bytes read as
    UTF-8 and compiled as text, so no coding declaration in it changes what its bytes mean
    (issue 37: `coding=unicode_escape` in a trace's file name made a kernel name code)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from reach_kb.loading import load_problem

    return types.SimpleNamespace(**load_problem(path, "reach").namespace)


def _gpu_activities(prof):
    """Kernels of the profiled call, read from the Chrome trace the profiler writes: the same
    names, with the same demangling, as the workload's own trace."""
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    found = {}
    for ev in trace.get("traceEvents", []):
        if ev.get("ph") != "X" or ev.get("cat") not in GPU_ACTIVITIES:
            continue
        k = found.setdefault(ev.get("name", ""), {"name": ev.get("name", ""), "calls": 0, "us": 0.0})
        k["calls"] += 1
        k["us"] += float(ev.get("dur", 0) or 0)
    return sorted(found.values(), key=lambda k: -k["us"])


def profile_problem(path, device, warmup):
    import torch
    dev = torch.device(device)
    torch.manual_seed(0)
    module = _load(path)
    model = module.Model(*module.get_init_inputs()).to(dev).eval()
    inputs = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    cuda = dev.type == "cuda"
    activities = [torch.profiler.ProfilerActivity.CPU]
    if cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.no_grad():
        for _ in range(warmup):
            model(*inputs)
        if cuda:
            torch.cuda.synchronize(dev)
        with torch.profiler.profile(activities=activities) as prof:
            model(*inputs)
            if cuda:
                torch.cuda.synchronize(dev)
    return _gpu_activities(prof) if cuda else []


def _child(path, device, warmup, wfd):
    # The problem's prints must not reach the document on stdout.
    os.dup2(2, 1)
    try:
        answer = {"ok": True, "error": None, "kernels": profile_problem(path, device, warmup)}
    except BaseException as e:  # noqa: BLE001 - whatever the problem raises is its result
        answer = {"ok": False, "error": f"{type(e).__name__}: {e}"[:2000], "kernels": []}
        traceback.print_exc()
    data = json.dumps(answer).encode()
    view = memoryview(data)
    while view:
        n = os.write(wfd, view)
        view = view[n:]
    os.close(wfd)
    sys.stderr.flush()
    os._exit(0)


class _Running:
    """One problem's child: its pipe, its deadline, what it has written so far."""

    def __init__(self, path, device, warmup, timeout):
        self.path, self.start = path, time.monotonic()
        self.deadline = self.start + timeout
        self.timeout = timeout
        self.chunks, self.size, self.why = [], 0, None
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.setsid()
            _child(path, device, warmup, w)
        os.close(w)
        self.pid, self.fd = pid, r

    def read(self):
        """Reads what is there; True once the child's answer is complete (or refused)."""
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            return True
        self.size += len(chunk)
        if self.size > ANSWER_LIMIT:
            self.why = "an answer past 16 MiB"
            return True
        self.chunks.append(chunk)
        return False

    def finish(self):
        os.close(self.fd)
        if self.why:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(self.pid, 0)
        result = {"file": os.path.basename(self.path),
                  "seconds": round(time.monotonic() - self.start, 3)}
        why = self.why
        if why is None:
            try:
                result.update(json.loads(b"".join(self.chunks)))
                return result
            except ValueError:
                why = (f"the problem's process ended with signal {os.WTERMSIG(status)}"
                       if os.WIFSIGNALED(status) else
                       f"the problem's process exited {os.WEXITSTATUS(status)} without an answer")
        result.update({"ok": False, "error": why, "kernels": []})
        return result


def run_all(paths, device, warmup, timeout, jobs):
    """Every problem in its own child, `jobs` at a time; results in the order of `paths`."""
    results, waiting, running = {}, list(enumerate(paths)), {}
    while waiting or running:
        while waiting and len(running) < jobs:
            index, path = waiting.pop(0)
            child = _Running(path, device, warmup, timeout)
            running[child.fd] = (index, child)
        now = time.monotonic()
        wait = max(0.0, min(c.deadline for _, c in running.values()) - now)
        ready, _, _ = select.select(list(running), [], [], wait)
        for fd in ready:
            index, child = running[fd]
            if child.read():
                del running[fd]
                results[index] = child.finish()
        now = time.monotonic()
        for fd, (index, child) in list(running.items()):
            if now >= child.deadline:
                child.why = f"no answer within {child.timeout:g} s (killed)"
                del running[fd]
                results[index] = child.finish()
    return [results[i] for i in range(len(paths))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per problem")
    ap.add_argument("--jobs", type=int, default=1, help="problems profiled at once")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    import torch  # before any fork: the children share the import, and CUDA is not touched here
    doc = {"torch": torch.__version__, "device": args.device, "device_name": None, "problems": []}
    doc["problems"] = run_all(args.files, args.device, max(0, args.warmup), args.timeout,
                              max(1, args.jobs))
    if args.device.startswith("cuda"):
        # Asked in a child too: initializing CUDA here would break the forks above.
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                name = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
            except Exception:  # noqa: BLE001
                name = None
            os.write(w, json.dumps(name).encode())
            os._exit(0)
        os.close(w)
        data = os.read(r, 4096)
        os.close(r)
        os.waitpid(pid, 0)
        try:
            doc["device_name"] = json.loads(data)
        except ValueError:
            pass
    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
