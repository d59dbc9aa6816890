#!/bin/bash
# Device call for issue 36 ("The whole verifier inside the boundary"), everything in one call
# (stage first: scripts/device/stage.sh; KernelBench's suite files in .kbsuite/, git-ignored).
# Phases, each with its own time limit, results in $OUT:
#   worker   the KernelBench-format judge's clock on the Python worker alone, beside do_bench
#   cpp      the controller's kernels (reach_gpu_tests DeviceKernels*) and the C++ path's clock:
#            a positive control and the C++ red team
#   redteam  scripts/redteam.py --device cuda over SEEDS (default 1)
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
V=$ROOT/.devrun/reach-verify
PHASES=${PHASES:-worker,cpp,redteam}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
cleanup() { pkill -9 -f reach_kbworker 2>/dev/null; pkill -9 -f reach-verify 2>/dev/null; sleep 1; }
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"
if has worker; then
  echo "=== worker $(date -u +%H:%M:%S)"
  PHASES=worker timeout ${WORKER_T:-150} bash scripts/device/session_judgeclock.sh 2>&1 | grep -v "^=== start"
  cleanup
fi
if has cpp; then
  echo "=== cpp $(date -u +%H:%M:%S)"
  timeout 60 .devrun/reach_gpu_tests --gtest_filter='DeviceKernels*' 2>&1 | tail -6
  for pair in ${CPP_PAIRS:-add_32M_f32.json:controls/positive/add.cu softmax_4096x8192_bf16.json:controls/positive/softmax.cu}; do
    p=${pair%%:*}; c=${pair##*:}
    timeout 70 $V --problem resources/problems/$p --candidate resources/$c --reps 50 > $OUT/cpp_${p%.json}.json 2> /tmp/cpp.err
    echo "--- $p exit $?"
    python3 - $OUT/cpp_${p%.json}.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("timing") or {}
b = (d.get("baseline") or {}).get("timing") or {}
print("verdict", d.get("verdict"), "speedup", round(d.get("speedup") or 0, 3), "median", t.get("median_us"),
      "p10", t.get("p10_us"), "p90", t.get("p90_us"), "baseline", b.get("median_us"))
for c in d.get("checks", []):
    if c["name"] in ("clock_agreement", "timed_outputs", "roofline_plausible") or not c["passed"]:
        print("  ", c["name"], c["passed"], c["detail"][:220])
for r in d.get("reasons", [])[:3]:
    print("  reason", r[:200])
PY
    tail -2 /tmp/cpp.err
  done
  cleanup
fi
if has redteam; then
  echo "=== redteam $(date -u +%H:%M:%S)"
  REACH_GPU_LOCK=/tmp/reach-gpu0.lock timeout ${REDTEAM_T:-170} python3 scripts/redteam.py --verifier $V \
    --device cuda --suite $ROOT/.kbsuite --seeds ${SEEDS:-1} --reps ${REPS:-50} --warmup 5 \
    --jobs ${JOBS:-3} --timeout 200 --out /tmp/redteam ${ONLY:+--only $ONLY} 2>&1 | tail -30
  cleanup
  tar czf $OUT/redteam.tgz -C /tmp redteam 2>/dev/null
fi
echo "=== end $(date -u +%H:%M:%S)"
