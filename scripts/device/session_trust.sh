#!/bin/bash
# Device call: the trust boundary of KernelBench-format verification on the H200 (issue "A verdict
# and a time that no candidate can forge"). Stage first, here: scripts/device/stage.sh, and the
# suite files in .kbsuite/ (git-ignored; KernelBench's level1/ and candidates/). Phases
# (PHASES=a,b,...; everything lands in $OUT):
#   smoke    one honest verify and one forged time, printed in full (stops the call if broken)
#   memory   19_ReLU: one verify with the GPU's used memory sampled every 50 ms, then two at once
#   timing   Reach's median against triton.testing.do_bench (kb_acceptance.py --phases timing)
#   sweep    every KernelBench-format control (kb_acceptance.py --phases sweep, correctness only)
#   reverify the 1 GiB problem re-verified warm (kb_acceptance.py --phases reverify)
#   redteam  scripts/redteam.py --device cuda over SEEDS (default 1; ONLY=case,... for some)
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
W=/tmp/trust; mkdir -p $W
V=$ROOT/.devrun/reach-verify
PHASES=${PHASES:-smoke,redteam,memory}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
cleanup() {  # a phase cut short by its timeout leaves its verifiers running: not into the next
  pkill -9 -f reach_kbworker 2>/dev/null; pkill -9 -f reach-verify 2>/dev/null; sleep 1
}
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"

summarize() {  # a verify document, in a few lines
  python3 - "$1" <<'PY'
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
print("verdict", d.get("verdict"), "speedup", d.get("speedup"), "wall", round(d.get("wall_seconds", 0), 1))
for r in d.get("reasons", [])[:4]:
    print("  reason:", r[:220])
re = d.get("reach") or {}
t = re.get("timing") or {}
if t:
    g = lambda c: [w - e for w, e in zip(c["judge_us"], c["runner_us"])]
    cal = (re.get("calibration") or {}).get("clock")
    print("  median", round(t.get("median_us", 0), 2), "judge", round(t.get("judge_median_us", 0), 2),
          "gap", round(st.median(g(t["clock"])), 2), "cal gap", round(st.median(g(cal)), 2) if cal else None,
          "cal median", (re.get("calibration") or {}).get("median_us"))
for c in d.get("checks", []):
    if c["name"] in ("clock_agreement", "roofline_plausible", "timed_outputs") or not c["passed"]:
        print("  check", c["name"], c["passed"], c["detail"][:200])
print("  phases", re.get("phase_seconds"), "notes", [n[:120] for n in re.get("notes", [])][:6])
m = re.get("memory")
if m:
    gib = lambda v: round(v / 2**30, 2) if isinstance(v, (int, float)) else v
    print("  memory GiB: judge", gib(m.get("judge_max_reserved_bytes")), "runner", gib(m.get("runner_max_reserved_bytes")),
          "shared", gib(m.get("shared_bytes")), "estimated", gib(m.get("estimated_bytes")),
          "admission wait s", m.get("admission_wait_s"), "queue_s", d.get("queue_s"))
if d.get("verdict") not in ("pass", "fail"):
    print("  log:", (re.get("log") or d.get("log") or "")[-1500:])
    print("  runner_log:", (re.get("runner_log") or "")[-1500:])
PY
}

if has smoke; then
  echo "=== smoke $(date -u +%H:%M:%S)"
  P=$ROOT/resources/kernelbench/problems
  $V --problem $P/reach_07_relu.py --candidate $ROOT/tests/data/redteam/gpu/honest_relu.py \
    --reps 50 > $W/smoke_honest.json 2> $W/smoke_honest.err; echo "exit $?"
  summarize $W/smoke_honest.json || { tail -30 $W/smoke_honest.err; }
  $V --problem $P/reach_09_matmul.py --candidate $ROOT/tests/data/redteam/gpu/elapsed_time_short.py \
    --reps 50 > $W/smoke_forged.json 2> $W/smoke_forged.err; echo "exit $?"
  summarize $W/smoke_forged.json || { tail -30 $W/smoke_forged.err; }
  cp $W/smoke_*.json $OUT/ 2>/dev/null
  if ! grep -q '"verdict": "pass"' $W/smoke_honest.json; then
    echo "=== smoke failed: stopping"; tail -40 $W/smoke_honest.err; exit 1
  fi
fi



if has memory; then
  echo "=== memory $(date -u +%H:%M:%S)"
  R=$ROOT/.kbsuite/level1/19_ReLU.py
  sample() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > $1 & echo $!; }
  base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)
  if [ "${MEMORY_SINGLE:-1}" = 1 ]; then
  pid=$(sample $W/mem1.txt)
  $V --problem $R --candidate $ROOT/tests/data/redteam/gpu/honest_relu.py --reps 30 \
    > $W/relu1.json 2> $W/relu1.err; echo "exit $?"
  kill $pid; summarize $W/relu1.json
  echo "one job: baseline $base MiB, peak $(sort -n $W/mem1.txt | tail -1) MiB (inputs + outputs 12288 MiB; 3x = 36864 MiB)"
  fi
  if [ "${MEMORY_PAIR:-1}" = 1 ]; then
  pid=$(sample $W/mem2.txt)
  export REACH_GPU_LOCK=/tmp/reach-gpu0.lock  # as a batch with --jobs-per-gpu 2
  $V --problem $R --candidate $ROOT/tests/data/redteam/gpu/honest_relu.py --reps 30 > $W/relu2a.json 2> $W/relu2a.err &
  a=$!
  $V --problem $R --candidate $ROOT/tests/data/redteam/gpu/honest_relu.py --reps 30 > $W/relu2b.json 2> $W/relu2b.err &
  b=$!
  wait $a; echo "job a exit $?"; wait $b; echo "job b exit $?"
  kill $pid; unset REACH_GPU_LOCK
  summarize $W/relu2a.json; summarize $W/relu2b.json
  echo "two jobs: peak $(sort -n $W/mem2.txt | tail -1) MiB"
  fi
  cp $W/relu*.json $W/mem*.txt $OUT/ 2>/dev/null
fi

for ph in timing sweep reverify; do
  if has $ph; then
    echo "=== $ph $(date -u +%H:%M:%S)"
    timeout ${KB_T:-400} python3 -u scripts/device/kb_acceptance.py --verifier $V --suite $ROOT/.kbsuite \
      --out $W/kb --jobs ${JOBS_SWEEP:-6} --phases $ph ${TIMING_ONLY:+--timing-only $TIMING_ONLY} \
      --server-reverifies ${SERVER_REVERIFIES:-3} 2>&1 | tail -40
    cleanup
  fi
done
if has redteam; then
  echo "=== redteam $(date -u +%H:%M:%S)"
  # As a batch runs jobs that share a GPU: its timing lock (shared for the job, exclusive while
  # timing), so jobs may overlap everything but their timed loops.
  REACH_GPU_LOCK=/tmp/reach-gpu0.lock timeout ${REDTEAM_T:-420} python3 scripts/redteam.py --verifier $V \
    --device cuda --suite $ROOT/.kbsuite --seeds ${SEEDS:-1} --reps ${REPS:-50} --warmup 5 \
    --jobs ${JOBS:-2} --timeout 400 --out $W/redteam ${ONLY:+--only $ONLY}
  cleanup
  tar czf $OUT/redteam.tgz -C $W redteam 2>/dev/null
fi
tar czf $OUT/trust.tgz -C $W . 2>/dev/null
echo "=== end $(date -u +%H:%M:%S)"
