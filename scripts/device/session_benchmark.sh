#!/bin/bash
# Device call: the workload's own benchmark on the H200 (issue "The workload's own benchmark").
# Stage here first: scripts/device/stage.sh, then the extracted folders in .devrun/bench/<name>/
# (reach-cli extract on datasets/profiles/h200-shapes; git-ignored, carried). Phases (PHASES=a,b):
#   profile  the workloads of profile_workloads.py's group D (recorded eager, AdamW per parameter:
#            every kernel under an ATen call with its shapes) into $OUT/profiles/, each extracted
#            by reach-cli extract into .devrun/bench/<name>/ for the phases after it
#   kernels  every problem of every folder profiled (resources/python/reach_problem_kernels.py):
#            the kernels it launches, as JSON per folder ($OUT/kernels_<name>.json)
#   check    reach-cli extract --check on every folder, JOBS problems at once ($OUT/check_<name>.txt,
#            and benchmark_<name>.json with launches_same_kernels filled)
#   candidates  each PROBLEM=CANDIDATE of CANDIDATES (space-separated; PROBLEM a path under
#            .devrun/bench/, CANDIDATE under tests/data/benchmark/) verified once
#            ($OUT/verify_<problem file>.json)
#   verify   tests/data/benchmark/dlrm_embedding_bag_triton.py verified on DLRM's extracted
#            embedding_bag problem, three times ($OUT/verify_embbag_N.json)
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
PHASES=${PHASES:-kernels,verify}
FOLDERS=${FOLDERS:-dlrm_inference resnet50_inference qwen2.5-14b_inference qwen2.5-1.5b_training encoder12_training_compiled}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used --format=csv,noheader)"
if has profile; then
  t0=$(date +%s)
  timeout ${PROFILE_T:-300} python3 scripts/device/profile_workloads.py --only D --out $OUT/profiles \
    > /tmp/profile.log 2>&1
  echo "profile: exit $? in $(( $(date +%s) - t0 )) s"; tail -6 /tmp/profile.log
  for g in $OUT/profiles/*_shapes.json.gz; do
    f=$(basename $g _shapes.json.gz)
    rm -rf .devrun/bench/$f
    .devrun/reach-cli extract $g --out .devrun/bench/$f > $OUT/extract_$f.txt 2>&1
    echo "extract $f: exit $?"; head -3 $OUT/extract_$f.txt
  done
fi
if has kernels; then
  for f in $FOLDERS; do
    t0=$(date +%s)
    timeout ${KERNELS_T:-150} python3 resources/python/reach_problem_kernels.py --device cuda \
      --timeout 60 .devrun/bench/$f/*.py > $OUT/kernels_$f.json 2> /tmp/kernels_$f.err
    echo "kernels $f: exit $? in $(( $(date +%s) - t0 )) s"; tail -3 /tmp/kernels_$f.err
  done
fi
if has check; then
  for f in $FOLDERS; do
    t0=$(date +%s)
    timeout ${CHECK_T:-150} .devrun/reach-cli extract --check .devrun/bench/$f --jobs ${JOBS:-4} \
      --timeout 90 > $OUT/check_$f.txt 2> /tmp/check_$f.err
    echo "check $f: exit $? in $(( $(date +%s) - t0 )) s"; head -1 $OUT/check_$f.txt; tail -3 /tmp/check_$f.err
    cp .devrun/bench/$f/benchmark.json $OUT/benchmark_$f.json
  done
fi
if has candidates; then
  for pc in ${CANDIDATES:-}; do
    P=.devrun/bench/${pc%%=*}; C=tests/data/benchmark/${pc#*=}; n=$(basename $P .py)
    t0=$(date +%s)
    timeout ${VERIFY_T:-180} .devrun/reach-verify --problem $P --candidate $C \
      > $OUT/verify_$n.json 2> /tmp/verify_$n.err
    echo "verify $n with $(basename $C): exit $? in $(( $(date +%s) - t0 )) s"
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); t=d.get('timing') or {}
print(' ', d['verdict'], d.get('reasons', [])[:3], 'median', t.get('median_us'), 'speedup', d.get('speedup'))" \
      $OUT/verify_$n.json || tail -20 /tmp/verify_$n.err
  done
fi
if has verify; then
  P=$(ls .devrun/bench/dlrm_inference/001__embedding_bag_*.py)
  for i in 1 2 3; do
    .devrun/reach-verify --problem $P --candidate tests/data/benchmark/dlrm_embedding_bag_triton.py \
      > $OUT/verify_embbag_$i.json 2> /tmp/verify_$i.err
    echo "verify $i: exit $?"
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); t=d.get('timing') or {}
print(d['verdict'], d.get('reasons', [])[:3], 'median', t.get('median_us'), 'speedup', d.get('speedup'),
      [(b.get('kind'), b.get('us')) for b in (d.get('reach') or {}).get('baselines', [])])" $OUT/verify_embbag_$i.json \
      || tail -20 /tmp/verify_$i.err
  done
fi
echo "=== end $(date -u +%H:%M:%S)"
