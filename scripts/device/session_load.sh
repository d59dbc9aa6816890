#!/bin/bash
# Device call for issues 36 and 38: the red team over three seeds while the GPU is shared, in one
# call (stage first: scripts/device/stage.sh; KernelBench's suite files in .kbsuite/).
#   A: KernelBench's 19_ReLU cases (6 GiB in, 6 GiB out; an honest one and three cheats), two
#      jobs at a time: they must book their memory (docs/batch.md), never time out;
#   B: every other GPU case over SEEDS (1,2,3), JOBS_B at a time, at the same time as A.
# Both share one $REACH_GPU_LOCK and its memory ledger, as a batch's jobs do. Then, if time is
# left, C: the C++ softmax's first verify with its phase times (issue 38: 58.5 s on an H100).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
export REACH_GPU_LOCK=/tmp/reach-gpu0.lock
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
V=$ROOT/.devrun/reach-verify
W=/tmp/load; mkdir -p $W
T=${LOAD_T:-480}
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"
timeout 40 .devrun/reach_gpu_tests --gtest_filter='DeviceKernels*' 2>&1 | tail -2
(cd tests/python && timeout 30 python3 -m unittest test_gpumemory 2>&1 | tail -2)
# NINETEEN= (empty) leaves A out: B alone, JOBS_B at a time. NINETEEN=a,b SEEDS_A=1,2,3 runs
# other cases as A (the ones no earlier call ran); ONLY_B=a,b narrows B.
NINETEEN=${NINETEEN-gpu_honest_relu_19,gpu_relu_poison_19,gpu_late_empty_like_19,gpu_relu_identity_19}
OTHERS=${ONLY_B:-$(python3 -c "
import json; d = json.load(open('tests/data/redteam/redteam.json'))
print(','.join(c['name'] for c in d['cases'] if c['device'] == 'cuda' and '19_ReLU' not in c['problem']))")}
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > $W/mem.txt &
SAMPLER=$!
t0=$(date +%s)
A=
if [ -n "$NINETEEN" ]; then
  timeout $T python3 scripts/redteam.py --verifier $V --device cuda --suite $ROOT/.kbsuite \
    --seeds ${SEEDS_A:-1} --reps ${REPS:-30} --warmup 5 --jobs ${JOBS_A:-2} --timeout 400 --out $W/a \
    --only $NINETEEN > $W/a.log 2>&1 &
  A=$!
fi
timeout $T python3 scripts/redteam.py --verifier $V --device cuda --suite $ROOT/.kbsuite \
  --seeds ${SEEDS:-1,2,3} --reps ${REPS:-30} --warmup 5 --jobs ${JOBS_B:-3} --timeout 400 --out $W/b \
  --only $OTHERS > $W/b.log 2>&1 &
B=$!
if [ -n "$A" ]; then
  wait $A; echo "=== A exit $? after $(( $(date +%s) - t0 )) s"; grep -v "^ok " $W/a.log | tail -20
fi
wait $B; echo "=== B exit $? after $(( $(date +%s) - t0 )) s"; grep -v "^ok " $W/b.log | tail -30
kill $SAMPLER
echo "peak GPU memory used: $(sort -n $W/mem.txt | tail -1) MiB"
python3 - $W <<'PY'
import json, sys, glob, os
for part in ("a", "b"):
    for f in sorted(glob.glob(os.path.join(sys.argv[1], part, "docs", "*.json"))):
        d = json.load(open(f))
        r = d.get("reach") or {}
        m = r.get("memory") or {}
        g = lambda v: round(v / 2**30, 1) if isinstance(v, (int, float)) else v
        kb = (d.get("kernelbench") or {}).get("phase_seconds") or {}
        print(os.path.basename(f), d.get("verdict"), "wall", d.get("wall_seconds") and round(d["wall_seconds"], 1),
              "queue", d.get("queue_s") and round(d["queue_s"], 1), "kb_total", kb.get("total"),
              "est", g(m.get("estimated_bytes")), "judge", g(m.get("judge_max_reserved_bytes")),
              "runner", g(m.get("runner_max_reserved_bytes")), "shared", g(m.get("shared_bytes")),
              "admit_wait", m.get("admission_wait_s"), "phases", d.get("phase_seconds"))
PY
pkill -9 -f reach_kbworker 2>/dev/null; pkill -9 -f reach-verify 2>/dev/null
left=$(( T + 60 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then
  echo "=== C: C++ softmax, first verify ($left s left)"
  rm -rf /tmp/reach-cache-c && mkdir -m 700 /tmp/reach-cache-c
  REACH_CACHE_DIR=/tmp/reach-cache-c timeout $left .devrun/reach-cli verify \
    --problem resources/problems/softmax_4096x8192_bf16.json --candidate resources/controls/positive/softmax.cu \
    --reps 50 2>&1 | grep -E "^(verdict|PASS|FAIL|compile|seconds|time)" | head
fi
tar czf $OUT/load.tgz -C $W a b a.log b.log mem.txt 2>/dev/null
echo "=== end $(date -u +%H:%M:%S)"
