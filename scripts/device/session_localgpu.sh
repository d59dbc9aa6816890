#!/bin/bash
# Device call (session 8): the local GPU's roofline row. reach-verify --device-info --bandwidth
# three times (the file datasets/evaluations/h200/device_info.json is the first), the GPU tests
# (every control, one seed, and GpuVerify.TheMeasuredCopyBandwidthIsTheLocalRowsDramCeiling),
# then `reach-cli headroom --gpu local` against the datasheet row on two shaped H200 traces.
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
echo "=== start $(date -u +%H:%M:%S)"
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,utilization.gpu --format=csv,noheader
for i in 1 2 3; do
  .devrun/reach-verify --device-info --bandwidth > $OUT/device_info_$i.json
  echo "device-info $i: exit $? $(grep -o '"copy_bandwidth_gbs": *[0-9.]*' $OUT/device_info_$i.json)"
done
REACH_VERIFY=$ROOT/.devrun/reach-verify .devrun/reach_gpu_tests \
  --gtest_filter='GpuVerify.*' 2>&1 | tail -12
for t in resnet50_inference qwen2.5-14b_inference; do
  f=datasets/profiles/h200-shapes/$t.json.gz
  for g in H200 local; do
    echo "--- headroom $t --gpu $g"
    REACH_VERIFY=$ROOT/.devrun/reach-verify .devrun/reach-cli headroom $f --gpu $g --json \
      > $OUT/headroom_${t}_$g.json 2> $OUT/headroom_${t}_$g.err
    echo "exit $? $(head -c 300 $OUT/headroom_${t}_$g.err)"
  done
done
SEEDS=1 timeout ${GPU_T:-300} bash scripts/verifier_device.sh env precompile gputests 2>&1 | tail -8
echo "=== end $(date -u +%H:%M:%S)"
