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


def _path(cache_dir, kind, k):
    return os.path.join(cache_dir, "results", kind, k[:2], k + ".json")


def load(cache_dir, kind, k):
    """The stored value and when it was measured, or None (no entry, or one that cannot be read:
    a cache is never a reason for a job to fail)."""
    if not cache_dir:
        return None
    try:
        with open(_path(cache_dir, kind, k), "r", encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != k or "value" not in entry:
        return None
    return entry


def store(cache_dir, kind, k, value):
    """Writes atomically (temporary file, then rename): two workers never see half an entry."""
    if not cache_dir:
        return
    path = _path(cache_dir, kind, k)
    entry = {"key": k, "kind": kind, "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "value": value}
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
    except OSError:
        pass


def reused(entry):
    """What a result says of a reused part."""
    return {"measured_at": entry["measured_at"], "key": entry["key"][:16]}
