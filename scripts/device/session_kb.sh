#!/bin/bash
# Device call: the C++ verifier's GPU tests (controls, one seed) after the refactor, then the
# KernelBench-format acceptance run (scripts/device/kb_acceptance.py). Everything lands in $OUT.
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
W=/tmp/kbwork; mkdir -p $W
echo "=== start $(date -u +%H:%M:%S)"
if [ "${SKIP_GPU:-0}" = 0 ]; then
  SEEDS=${SEEDS:-1} timeout ${GPU_T:-170} bash scripts/verifier_device.sh env precompile gputests 2>&1 | tail -25
fi
echo "=== kb $(date -u +%H:%M:%S)"
timeout ${KB_T:-380} python3 -u scripts/device/kb_acceptance.py --verifier $ROOT/.devrun/reach-verify \
  --suite $ROOT/.kbsuite --out $W/kb --jobs ${JOBS:-8} --timed-budget ${TIMED:-110} \
  --phases ${PHASES:-sweep,timed,timing,reverify} --deadline-s ${DEADLINE:-100000} \
  --sweep-done $ROOT/.devrun/sweep_done.txt 2>&1 | tee $W/kb_log.txt | grep -v "^sweep " | tail -60
grep -c "^sweep " $W/kb_log.txt
grep "^sweep .*BAD" $W/kb_log.txt | head -30
tar czf $OUT/kb.tgz -C $W . 2>/dev/null
echo "=== end $(date -u +%H:%M:%S)"
