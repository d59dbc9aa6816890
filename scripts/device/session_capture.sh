#!/bin/bash
# Device call for issue 41, item 3: reach-cli profile on the bundled workloads (WORKLOADS, from
# scripts/device/profile_workloads.py, each step marked with reach_step()), each trace's breakdown
# and what extraction covers, as a user would run it. Stage first (scripts/device/stage.sh).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
for w in ${WORKLOADS:-dlrm_inference resnet50_inference}; do
  t0=$(date +%s)
  echo "=== profile $w $(date -u +%H:%M:%S)"
  timeout ${CAPTURE_T:-150} .devrun/reach-cli profile --steps ${STEPS:-5} --warmup 3 \
    --out /tmp/capture_$w.json.gz -- python3 scripts/device/profile_workloads.py --only $w \
    --reach-steps 100000 --out /tmp/pw_$w 2>&1 | grep -v "^reach-cli profile: " | tail -12
  echo "exit ${PIPESTATUS[0]} in $(( $(date +%s) - t0 )) s"
  .devrun/reach-cli extract /tmp/capture_$w.json.gz --out /tmp/capture_bench_$w 2>&1 | head -1
done
