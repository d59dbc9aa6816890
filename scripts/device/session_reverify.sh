#!/bin/bash
# Device call (session 7): KernelBench's zero_out and non_default_stream kernels against
# 1_Square_matrix_multiplication_ (session_adversarial.sh), then the 1 GiB re-verify (a first
# job that fills the caches, three re-verifies: kb_acceptance.py --phases reverify), and the
# device's own row for the headroom tables (reach-verify --device-info).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
W=/tmp/kbwork; mkdir -p $W
$ROOT/.devrun/reach-verify --device-info > $OUT/device_info.json 2>&1
bash scripts/device/session_adversarial.sh
echo "=== reverify $(date -u +%H:%M:%S)"
timeout ${RV_T:-300} python3 -u scripts/device/kb_acceptance.py --verifier $ROOT/.devrun/reach-verify \
  --out $W/kb --phases reverify 2>&1 | tail -12
tar czf $OUT/kb.tgz -C $W . 2>/dev/null
echo "=== end $(date -u +%H:%M:%S)"
