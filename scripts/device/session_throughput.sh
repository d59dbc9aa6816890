#!/bin/bash
# Device call for issue 38's throughput and "the same verdicts with 1 job and with 4": the
# KernelBench-format controls of PROBLEMS (every candidate of each, honest and cheats, the
# precision the controls name first) judged
#   kbeval  by KernelBench's eval alone, one job at a time (reach_kbworker.py kernelbench: its
#           5 correctness trials and 100 timed ones, each job a fresh process and a fresh build
#           cache, as KernelBench's own eval runs a kernel on a GPU), for KBEVAL_T seconds;
#   batch4  by Reach, `reach-cli verify --batch` with 4 jobs on the GPU (KernelBench's eval
#           reproduced inside every job, plus Reach's oracle, judge's clock and baselines; the
#           torch.compile baseline left out, as KernelBench's eval has none), for BATCH_T seconds;
#   batch1  the same batch one job at a time, for what time is left before SERIAL_T.
# Each phase runs until it is done or its time is up; jobs per hour count the jobs finished
# within it. Verdicts: the batch's against the controls' expectation, and batch4's against batch1's.
# Stage first (here): scripts/device/stage.sh.
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
export REACH_VERIFY=$ROOT/.devrun/reach-verify REACH_GPU_LOCK=/tmp/reach-gpu0.lock
CLI=$ROOT/.devrun/reach-cli
W=/tmp/throughput; rm -rf $W; mkdir -p $W
PROBLEMS=${PROBLEMS:-reach_01_softmax,reach_05_rmsnorm,reach_07_relu,reach_12_add}
t_start=$(date +%s)
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"
python3 - "$ROOT/resources/kernelbench" "$PROBLEMS" "$W" <<'PY'
import json, sys
kb, wanted, w = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
jobs = []
for c in json.load(open(f"{kb}/controls.json"))["controls"]:
    if any(f"problems/{p}.py" == c["problem"] for p in wanted):
        prec = (c.get("precisions") or ["fp32"])[0]
        jobs.append({"problem": f"{kb}/{c['problem']}", "candidate": f"{kb}/{c['candidate']}",
                     "args": ["--precision", prec], "expect": c.get("expect")})
json.dump([{k: j[k] for k in ("problem", "candidate", "args")} for j in jobs], open(f"{w}/jobs.json", "w"))
json.dump(jobs, open(f"{w}/expect.json", "w"))
print(len(jobs), "jobs:", {e: sum(j["expect"] == e for j in jobs) for e in ("pass", "fail")})
PY
stamp() { while IFS= read -r l; do echo "$(date +%s.%N) $l"; done; }

echo "=== kbeval $(date -u +%H:%M:%S)"
t0=$(date +%s.%N)
python3 - "$W" "${KBEVAL_T:-200}" > $W/kbeval.jsonl <<'PY'
import json, subprocess, sys, time, os
w, limit = sys.argv[1], float(sys.argv[2])
t0 = time.time()
for i, j in enumerate(json.load(open(f"{w}/expect.json"))):
    left = limit - (time.time() - t0)
    if left < 5:
        break
    s = time.time()
    cache = f"{w}/kbcache{i}"
    try:
        p = subprocess.run([sys.executable, os.environ["REACH_RESOURCES"] + "/python/reach_kbworker.py",
                            "kernelbench", "--problem", j["problem"], "--candidate", j["candidate"],
                            "--precision", j["args"][1], "--device", "cuda", "--cache-dir", cache,
                            "--fresh"], capture_output=True, text=True, timeout=left)
        doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    except subprocess.TimeoutExpired:
        break
    except ValueError:
        doc = {}
    print(json.dumps({"candidate": j["candidate"].split("/kernelbench/")[-1], "expect": j["expect"],
                      "correct": doc.get("correctness"), "runtime_ms": doc.get("runtime_ms") or doc.get("runtime"),
                      "wall_s": round(time.time() - s, 2), "end_s": round(time.time() - t0, 2)}), flush=True)
PY
n=$(wc -l < $W/kbeval.jsonl)
el=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
echo "kbeval: $n jobs in $el s"; cat $W/kbeval.jsonl | cut -c1-220

for ph in batch4 batch1; do
  per=4; lim=${BATCH_T:-270}
  if [ $ph = batch1 ]; then
    per=1; lim=$(( ${SERIAL_T:-575} - ($(date +%s) - t_start) ))
    [ $lim -lt 40 ] && { echo "=== batch1 skipped ($lim s left)"; continue; }
  fi
  echo "=== $ph $(date -u +%H:%M:%S) (limit $lim s)"
  export REACH_CACHE_DIR=$W/cache-$ph; mkdir -m 700 -p $REACH_CACHE_DIR
  t0=$(date +%s.%N)
  timeout $lim $CLI verify --batch $W/jobs.json --gpus all --jobs-per-gpu $per --no-compile-baseline \
    --reps 100 --progress-interval 30 2> $W/$ph.err | stamp > $W/$ph.lines
  echo "$ph exit ${PIPESTATUS[0]} after $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
  python3 - $W/$ph.lines $t0 <<'PY'
import sys
lines = [l.split(" ", 1) for l in open(sys.argv[1]) if l.strip()]
t0 = float(sys.argv[2])
done = [(float(t) - t0, rest.strip()) for t, rest in lines]
if done:
    print(f"{len(done)} jobs done, last at {done[-1][0]:.1f} s: {len(done) * 3600 / done[-1][0]:.0f} jobs/h")
for t, r in done:
    print(f"  {t:6.1f} {r[:200]}")
PY
  tail -3 $W/$ph.err
done
tar czf $OUT/throughput.tgz -C $W jobs.json expect.json kbeval.jsonl batch4.lines batch4.err batch1.lines batch1.err 2>/dev/null
echo "=== end $(date -u +%H:%M:%S)"
