#!/bin/bash
# Device call (session 7): the reader benchmark of session_gputests_bench.sh again (its first run
# lacked RE2 in .devrun/lib), then the four workloads left to re-profile (session_profiles.sh).
set -u
ROOT=$PWD
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
S=/tmp/qwen2.5-14b_scaled_1gb.json
[ -s $S ] || python3 tests/bench/scale_trace.py datasets/profiles/h200/qwen2.5-14b_inference.json.gz $S 1000
echo "=== bench $(date -u +%H:%M:%S)"; lscpu | grep -E "Model name|^CPU\(s\)"
REACH_BENCH_REPEAT=5 python3 tests/bench/compare.py classifier $S \
  $ROOT/.devrun/reach_readprofile "{}" -- $ROOT/.devrun/reach-cli breakdown "{}" --json 2>&1 | tail -4
rm -f $S
bash scripts/device/session_profiles.sh
