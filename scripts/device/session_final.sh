#!/bin/bash
# Device call: profiles for "Breakdowns that hold on today's stacks" and "Headroom" (groups B, C
# and the small A workloads of scripts/device/profile_workloads.py) while the KernelBench-format
# candidates the timed checks use are built in the background; then the timed KernelBench checks
# (do_bench agreement, KernelBench's suite, the cheats whose catch needs timing).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
W=/tmp/fw; mkdir -p $W/prof $W/kb
echo "=== start $(date -u +%H:%M:%S)"
python3 -u scripts/device/kb_acceptance.py --verifier $ROOT/.devrun/reach-verify --suite $ROOT/.kbsuite \
  --out $W/kb/warm --jobs 8 --phases warm > $W/warm_log.txt 2>&1 &
WARM=$!
timeout ${PROF_T:-290} python3 -u scripts/device/profile_workloads.py \
  --only fp8_scaled_mm,moe_grouped_gemm,sdpa_backends,cuda_graph_replay,xcheck,resnet50_inference,dlrm_inference,max_autotune \
  --out $W/prof --budget-s ${PROF_BUDGET:-275} --xcheck-no-large > $W/prof_log.txt 2>&1
echo "=== profiles $(date -u +%H:%M:%S)"; grep -E "^\[ ok \]|^\[fail\]|^\[skip\]|done in" $W/prof_log.txt | tail -20
wait $WARM; echo "=== warm done $(date -u +%H:%M:%S)"; cat $W/warm_log.txt | grep -E "^warm" | head -12
timeout ${KB_T:-225} python3 -u scripts/device/kb_acceptance.py --verifier $ROOT/.devrun/reach-verify \
  --suite $ROOT/.kbsuite --out $W/kb/timed --phases timing,timed --no-positives --no-compile \
  --timed-budget 200 2>&1 | tee $W/kb_log.txt | grep -vE "^=== (timing|timed) at" | tail -25
( cd $W/prof && ls -la ) > $W/prof_files.txt 2>&1
tar czf $OUT/final.tgz -C $W kb warm_log.txt prof_log.txt kb_log.txt prof_files.txt 2>/dev/null
tar cf $OUT/prof.tar -C $W prof 2>/dev/null
ls -la $OUT
echo "=== end $(date -u +%H:%M:%S)"
