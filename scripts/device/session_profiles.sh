#!/bin/bash
# Device call (session 7): the four shipped H200 workloads not yet re-profiled with operator shapes
# (issue 17, item 5; same shapes and steps as datasets/profiles/h200/manifest.json), into $OUT/prof.
set -u
echo "=== start $(date -u +%H:%M:%S)"
python3 -u scripts/device/profile_workloads.py \
  --only resnet50_inference_compiled,qwen2.5-14b_inference,qwen2.5-1.5b_training,encoder12_training_compiled \
  --out $OUT/prof --bundle --tag a --budget-s ${BUDGET:-480} 2>&1 | tail -30
ls -la $OUT/prof
echo "=== end $(date -u +%H:%M:%S)"
