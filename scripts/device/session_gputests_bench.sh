#!/bin/bash
# Device call (session 7): the verifier's GPU tests (every control, one seed) after this session's
# changes, then scripts/bench's classifier comparison on the GPU machine's idle CPUs: the ~1 GB
# scaled qwen2.5-14b trace (generated there, never committed), reading alone
# (reach_readprofile) against `reach-cli breakdown --json` in the same run (issue 13's 500 MB/s).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
echo "=== start $(date -u +%H:%M:%S)"
( SCALED=/tmp/qwen2.5-14b_scaled_1gb.json
  python3 tests/bench/scale_trace.py datasets/profiles/h200/qwen2.5-14b_inference.json.gz $SCALED 1000 \
    > $OUT/scale.log 2>&1
  echo "=== scaled trace $(date -u +%H:%M:%S)" >> $OUT/scale.log ) &
SEEDS=1 timeout ${GPU_T:-300} bash scripts/verifier_device.sh env precompile gputests 2>&1 | tail -25
wait
cat $OUT/scale.log
echo "=== bench $(date -u +%H:%M:%S) (GPU tests done: the CPUs are idle)"
lscpu | grep -E "Model name|^CPU\(s\)|MHz" | head -4
REACH_BENCH_REPEAT=5 python3 tests/bench/compare.py classifier /tmp/qwen2.5-14b_scaled_1gb.json \
  $ROOT/.devrun/reach_readprofile "{}" -- $ROOT/.devrun/reach-cli breakdown "{}" --json 2>&1 | tail -15
echo "=== end $(date -u +%H:%M:%S)"
