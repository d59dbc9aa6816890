#!/bin/bash
# Device call (issue 13): the reader's throughput on the GPU machine's idle CPUs, as scripts/bench
# measures it: the ~1 GB traces scaled from the real qwen2.5-14b and shaped resnet50 profiles,
# `reach-cli breakdown --json` against reading alone (reach_readprofile) in the same run, peak
# RSS beside each; the reader on one thread against the reader split over the CPUs (--threads 0
# against the default); and this session's reader against the one before it (.devrun/old/,
# built by hand from the earlier commit) on the same file in the same run.
set -u
ROOT=$PWD
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} REACH_RESOURCES=$ROOT/resources
export REACH_BENCH_REPEAT=${REACH_BENCH_REPEAT:-6}
echo "=== start $(date -u +%H:%M:%S), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo)"
Q=/tmp/qwen2.5-14b_scaled_1gb.json
S=/tmp/resnet50_shapes_scaled_1gb.json
python3 tests/bench/scale_trace.py datasets/profiles/h200/qwen2.5-14b_inference.json.gz $Q 1000 &
python3 tests/bench/scale_trace.py datasets/profiles/h200-shapes/resnet50_inference.json.gz $S 1000 &
wait
cat $Q $S > /dev/null  # page cache: the runs time the reader, not the disk
echo "=== scaled $(date -u +%H:%M:%S)"
echo "--- this session's reader against the last (reading alone, same file, same run)"
python3 tests/bench/compare.py classifier $Q .devrun/old/reach_readprofile "{}" \
  -- .devrun/reach_readprofile "{}"
for t in $Q $S; do
  echo "--- one thread against split: $(basename $t)"
  python3 tests/bench/compare.py threads $t .devrun/reach_readprofile --threads 0 "{}" \
    -- .devrun/reach_readprofile "{}"
done
for t in $Q $S; do
  echo "--- breakdown against reading alone: $(basename $t)"
  python3 tests/bench/compare.py classifier $t .devrun/reach_readprofile "{}" \
    -- .devrun/reach-cli breakdown "{}" --json
done
echo "=== end $(date -u +%H:%M:%S)"
