#!/bin/bash
# Device call: the reader benchmark (scripts/device/session_reader_bench.sh) on the idle machine,
# then, in what is left of BUDGET seconds (default 360), a fuzz round (scripts/device/
# fuzz_session.sh) on the corpus staged by stage_fuzz.sh. The benchmark's output is bench.txt.
set -u
budget=${1:-360}
start=$SECONDS
bash scripts/device/session_reader_bench.sh > "$OUT/bench.txt" 2>&1
cat "$OUT/bench.txt"
left=$(( budget - (SECONDS - start) - 45 ))  # 45 s for the merge and the archives
if (( left > 30 )); then
  bash scripts/device/fuzz_session.sh "$left"
else
  echo "no time left to fuzz ($left s)"
fi
