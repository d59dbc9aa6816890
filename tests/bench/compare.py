#!/usr/bin/env python3
"""Times Reach's reader against the Python baseline in the same run (scripts/bench drives it).

  compare.py ratio TRACE READER_CMD... : runs READER_CMD (with {} replaced by TRACE) and
      python_breakdown.py on TRACE, interleaved, REPEAT times each; prints the median wall times,
      their ratio (Python / Reach), and Reach's peak RSS over the uncompressed size of TRACE.
  compare.py throughput TRACE READER_CMD... : runs READER_CMD on TRACE; prints MB/s of
      uncompressed input and peak RSS.
  compare.py classifier TRACE BASE_CMD... -- READER_CMD... : throughput of both on TRACE in the
      same run (BASE_CMD reads the trace only, READER_CMD reads and classifies it): what the
      classifier paths (name rules, launching operators, graphs, shaped calls) cost, as a ratio,
      against the targets (>= 500 MB/s, peak RSS < 0.5 x the uncompressed trace).
Both check that Reach and Python agree on the GPU time, so a fast wrong reader cannot pass.
"""
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPEAT = int(os.environ.get("REACH_BENCH_REPEAT", "5"))


def run(cmd):
    """Wall seconds, peak RSS bytes, CPU seconds (user + system) and stdout of one run.

    The peak RSS comes from GNU time: a child's ru_maxrss seen from Python would include the
    Python process it was forked from (Linux keeps the high-water mark across exec).
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "REACH_MAXRSS_KB=%M REACH_CPU=%U %S"] + cmd, stdout=out,
                           stderr=err)
        wall = time.perf_counter() - t
        err.seek(0)
        text = err.read().decode(errors="replace")
        if p.returncode != 0:
            sys.exit(f"compare.py: {' '.join(cmd)} failed ({p.returncode}): {text.strip()}")
        stats = text.rsplit("REACH_MAXRSS_KB=", 1)[1].split()
        rss = int(stats[0]) * 1024
        cpu = float(stats[1].split("=")[1]) + float(stats[2])
        out.seek(0)
        return wall, rss, cpu, out.read().decode()


def uncompressed_size(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic != b"\x1f\x8b":
        return os.path.getsize(path)
    n = 0
    with gzip.open(path, "rb") as f:
        while True:
            b = f.read(1 << 22)
            if not b:
                return n
            n += len(b)


def gpu_time(text):
    d = json.loads(text)
    if "workloads" in d:  # reach-cli breakdown --json
        d = d["workloads"][0]
    return float(d["gpu_time_us"])


def reader_cmd(template, trace):
    return [a.replace("{}", trace) for a in template]


def ratio(trace, template):
    size = uncompressed_size(trace)
    reach_walls, py_walls, reach_cpu, py_cpu, rss = [], [], [], [], 0
    reach_gpu = py_gpu = None
    for _ in range(REPEAT):
        w, r, c, out = run(reader_cmd(template, trace))
        reach_walls.append(w)
        reach_cpu.append(c)
        rss = max(rss, r)
        reach_gpu = gpu_time(out)
        w, _, c, out = run([sys.executable, os.path.join(HERE, "python_breakdown.py"), trace])
        py_walls.append(w)
        py_cpu.append(c)
        py_gpu = gpu_time(out)
    if abs(reach_gpu - py_gpu) > 1e-6 * max(1.0, py_gpu):
        sys.exit(f"compare.py: GPU time differs: reach {reach_gpu} python {py_gpu}")
    rw, pw = statistics.median(reach_walls), statistics.median(py_walls)
    result = {
        "trace": os.path.basename(trace),
        "uncompressed_mb": round(size / 1e6, 1),
        "runs": REPEAT,
        "reach_wall_s": round(rw, 3),
        "python_wall_s": round(pw, 3),
        "speedup": round(pw / rw, 1),
        # CPU seconds (both of Reach's threads) are less sensitive to a loaded machine.
        "reach_cpu_s": round(statistics.median(reach_cpu), 3),
        "python_cpu_s": round(statistics.median(py_cpu), 3),
        "cpu_ratio": round(statistics.median(py_cpu) / max(statistics.median(reach_cpu), 1e-3), 1),
        "reach_peak_rss_mb": round(rss / 1e6, 1),
        "rss_over_uncompressed": round(rss / size, 3),
        "gpu_time_us": reach_gpu,
    }
    print(json.dumps(result))
    print(f"Reach vs Python json.load on {result['trace']} ({result['uncompressed_mb']} MB "
          f"uncompressed): {result['speedup']}x faster (median of {REPEAT}: {rw:.3f} s vs "
          f"{pw:.3f} s; target >= 10x; CPU time ratio {result['cpu_ratio']}x); Reach peak RSS {result['reach_peak_rss_mb']} MB = "
          f"{result['rss_over_uncompressed']} x uncompressed (target <= 0.5)")


def measure(trace, template):
    size = uncompressed_size(trace)
    walls, cpus, rss = [], [], 0
    for _ in range(max(1, REPEAT // 2)):
        w, r, c, out = run(reader_cmd(template, trace))
        walls.append(w)
        cpus.append(c)
        rss = max(rss, r)
    w = statistics.median(walls)
    cpu = statistics.median(cpus)
    result = {"trace": os.path.basename(trace), "uncompressed_mb": round(size / 1e6, 1),
              "reach_wall_s": round(w, 3), "mb_per_s": round(size / 1e6 / w, 1),
              "reach_cpu_s": round(cpu, 3), "mb_per_cpu_s": round(size / 1e6 / max(cpu, 1e-3), 1),
              "reach_peak_rss_mb": round(rss / 1e6, 1), "gpu_time_us": gpu_time(out),
              "rss_over_uncompressed": round(rss / size, 3)}
    return result


def throughput(trace, template):
    result = measure(trace, template)
    w = result["reach_wall_s"]
    print(json.dumps(result))
    print(f"Reach on {result['trace']} ({result['uncompressed_mb']} MB): {result['mb_per_s']} MB/s "
          f"({w:.2f} s wall; {result['mb_per_cpu_s']} MB per CPU second), peak RSS "
          f"{result['reach_peak_rss_mb']} MB")


def measure_pair(trace, commands, names):
    """Both commands (split at "--") on one trace in the same run, printed as JSON."""
    cut = commands.index("--")
    a, b = measure(trace, commands[:cut]), measure(trace, commands[cut + 1:])
    print(json.dumps({names[0]: a, names[1]: b}))
    return a, b


def classifier(trace, commands):
    base, full = measure_pair(trace, commands, ("read_only", "breakdown"))
    print(f"{full['trace']} ({full['uncompressed_mb']} MB): read only {base['mb_per_s']} MB/s, "
          f"breakdown {full['mb_per_s']} MB/s (ratio {full['mb_per_s'] / base['mb_per_s']:.2f}; "
          f"target >= 500 MB/s: {'yes' if full['mb_per_s'] >= 500 else 'NO'}); peak RSS "
          f"{full['reach_peak_rss_mb']} MB = {full['rss_over_uncompressed']} x the trace "
          f"(read only {base['rss_over_uncompressed']} x; target < 0.5: "
          f"{'yes' if full['rss_over_uncompressed'] < 0.5 else 'NO'})")


def threads(trace, commands):
    one, split = measure_pair(trace, commands, ("one_thread", "split"))
    print(f"{split['trace']} ({split['uncompressed_mb']} MB): one thread {one['mb_per_s']} MB/s, "
          f"split over threads {split['mb_per_s']} MB/s (ratio "
          f"{split['mb_per_s'] / one['mb_per_s']:.2f}); peak RSS {one['reach_peak_rss_mb']} / "
          f"{split['reach_peak_rss_mb']} MB; GPU time {one['gpu_time_us']} / "
          f"{split['gpu_time_us']} us ({'equal' if one['gpu_time_us'] == split['gpu_time_us'] else 'DIFFERENT'})")


if __name__ == "__main__":
    mode, trace, template = sys.argv[1], sys.argv[2], sys.argv[3:]
    {"ratio": ratio, "throughput": throughput, "classifier": classifier,
     "threads": threads}[mode](trace, template)
