"""What a re-verify may reuse: measurements that are a function of files and versions alone.

A re-verify (the GUI's one click, `reach-cli verify --record`) must give Reach's verdict and time
afresh: every check and the candidate's timing run again in a fresh process. Three parts of a job
do not depend on the run, only on what it ran, and they cost most of its seconds:

- `kernelbench`: KernelBench's verdict, reproduced. Fixed seeds and fixed trials make it a function
  of the two files, the options, the worker and the Python stack. It is answered before PyTorch is
  imported, so a hit costs the interpreter's start only.
- `baselines`: eager and torch.compile timings of the problem's Model (the problem file, the
  precision, the timing protocol, the GPU model and the stack; torch.compile's Inductor build is
  most of a job's time).
- `census`: which kernels one candidate call launched (PyTorch's profiler, whose start-up costs
  3-4 s).

An entry is keyed by a SHA-256 of everything it depends on (`stack_key` plus the caller's parts)
and records when it was measured; the result says it was reused and when it was measured
(docs/kernelbench.md, "Re-verify"). `--fresh` measures everything again.

Who writes: only reach-verify (core/verify/kbcache.h). It passes the entries a job may use
(`--cache-in FILE`: those filed under the job's own problem, and problem and candidate) and
files what the job's document lists in `cache_store` under the same files. The worker, and with
it every candidate, never writes the cache: a sandboxed job does not even see it.
"""

import glob
import hashlib
import importlib.metadata
import json
import os
import platform
import sys
import time

_WORKER_DIR = os.path.dirname(os.path.abspath(__file__))


def _dist_version(name):
    try:
        return importlib.metadata.version(name)
    except Exception:
        return None


def _gpu_models():
    """The host's GPU models from the driver's /proc files: no CUDA initialization, no PyTorch."""
    models = set()
    for info in glob.glob("/proc/driver/nvidia/gpus/*/information"):
        try:
            with open(info, "r", encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("Model:"):
                        models.add(line.split(":", 1)[1].strip())
        except OSError:
            pass
    return sorted(models)


def _worker_digest():
    h = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(_WORKER_DIR, "*.py"))):
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def stack_key():
    """What every entry depends on besides its own inputs: the worker's code, the interpreter,
    PyTorch and Triton (read from their installed metadata, without importing them), the GPUs."""
    return {
        "worker": _worker_digest(),
        "python": [sys.executable, platform.python_version()],
        "torch": _dist_version("torch"),
        "triton": _dist_version("triton") or _dist_version("pytorch-triton"),
        "gpus": _gpu_models(),
    }


def file_digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def key(kind, parts):
    text = json.dumps({"kind": kind, "stack": stack_key(), "parts": parts}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def read_entries(path):
    """The entries the controller passed (--cache-in): {kind: {key: entry}}. An unreadable or
    malformed file is no entries: a cache is never a reason for a job to fail."""
    if not path:
        return {}
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    entries = data.get("entries") if isinstance(data, dict) else None
    return entries if isinstance(entries, dict) else {}


def lookup(entries, kind, k):
    """The stored value and when it was measured, or None."""
    table = (entries or {}).get(kind)
    entry = table.get(k) if isinstance(table, dict) else None
    if not isinstance(entry, dict) or entry.get("key") != k or "value" not in entry:
        return None
    if not isinstance(entry.get("measured_at"), str):
        return None
    return entry


def to_store(kind, k, value):
    """What the controller writes (core/verify/kbcache.h): this process never writes the cache,
    so a candidate in the runner, or a worker that ran one, cannot plant an entry of another
    problem's; the controller files each entry under the files of the job that made it."""
    return {"kind": kind, "key": k, "value": value,
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def reused(entry):
    """What a result says of a reused part."""
    return {"measured_at": entry["measured_at"], "key": entry["key"][:16]}


def baseline_key(args, judge):
    """Eager and torch.compile times of the problem's Model: the problem's bytes, the precision,
    the timing protocol, the GPU model and the stack."""
    problem = file_digest(args.problem)
    if problem is None:
        return None
    device = "cpu"
    if judge.cuda:
        try:
            device = judge.torch.cuda.get_device_name(judge.device)
        except Exception:
            device = "cuda"
    return key("baselines", {"problem": problem, "precision": args.precision, "device": device,
                             "reps": args.reps, "warmup": args.warmup, "protocol": "judge-runner-1",
                             "compile": not args.no_compile_baseline})


def census_key(args):
    problem, candidate = file_digest(args.problem), file_digest(args.candidate)
    if problem is None or candidate is None:
        return None
    return key("census", {"problem": problem, "candidate": candidate, "precision": args.precision})
