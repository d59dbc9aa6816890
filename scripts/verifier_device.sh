#!/bin/bash
# The verifier's GPU session in one call (run through the device tool on the H200 machine, from
# the repository root). Binaries are built elsewhere with -arch-independent host code and carried
# in .devrun/ (stripped copies of build/verifier/...); candidates are compiled here by nvcc.
# Usage: scripts/verifier_device.sh PHASE...   phases: env precompile controls gputests timing
#        reverify evaluations gathers flush. Logs and tables go to $OUT.
set -u
ROOT=$PWD
# The device tool brings back at most 8 files from $OUT: everything is written to a work dir and
# packed into one archive at the end.
FINAL_OUT=${OUT:-/tmp/reach-out}
OUT=/tmp/reach-work
mkdir -p "$OUT" "$FINAL_OUT"
# The test binary has the source dir compiled in; make it resolve on this machine.
[ -e /work/main ] || { mkdir -p /work && ln -s "$ROOT" /work/main; }
export REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache PATH=/usr/local/cuda/bin:$PATH
PYLIBS=$(python3 -c "import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],'lib'))" 2>/dev/null)
# .devrun/lib carries the few host libraries reach-cli needs that the image may lack (ISA-L).
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:/usr/local/cuda/lib64:${PYLIBS}:${LD_LIBRARY_PATH:-}
D=$ROOT/.devrun
V=$D/reach-verify
export REACH_VERIFY=$V
now() { date +%s.%N; }
since() { python3 -c "import sys,time; print('%.3f' % (time.time() - float(sys.argv[1])))" "$1"; }

for phase in "$@"; do
  echo "=== $phase $(date -u +%H:%M:%S)"
  case $phase in
  env)
    { nvidia-smi; nvcc --version; uname -a; ldd $V; python3 -c 'import torch,triton;print(torch.__version__,triton.__version__)'; } > $OUT/env.txt 2>&1
    $V --device-info | tee $OUT/device.json
    ;;
  precompile)
    t0=$(now)
    ls resources/controls/*/*.cu resources/baselines/*.cu datasets/evaluations/h200/candidates/*.cu 2>/dev/null |
      xargs -P 16 -I{} $V --compile-only --candidate {} > $OUT/precompile.log 2>&1
    echo "precompile: $(since $t0) s, $(grep -c '"status": "ok"' $OUT/precompile.log) ok, $(grep -c '"status": "error"' $OUT/precompile.log) error"
    ;;
  controls)
    $D/reach-cli verify --controls --seeds 1 --reps 20 > $OUT/controls_table.txt 2> $OUT/controls_progress.txt
    echo "controls rc=$?"; tail -50 $OUT/controls_table.txt
    ;;
  gputests)
    rm -f $OUT/gpu_table.md
    export REACH_GPU_TABLE=$OUT/gpu_table.md REACH_GPU_SEEDS=${SEEDS:-5}
    t0=$(now)
    for i in 0 1 2 3; do
      GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i $D/reach_gpu_tests --gtest_filter="${GPU_FILTER:-*}" > $OUT/gpu_tests_shard$i.log 2>&1 &
    done
    wait
    echo "gpu tests: $(since $t0) s"
    grep -hE "^\[  (PASSED|FAILED|  SKIPPED)|tests ran|FAILED  \]" $OUT/gpu_tests_shard*.log
    sort $OUT/gpu_table.md | awk -F'|' '{k=$2"|"$3"|"$5"|"$6"|"$7"|"$8; n[k]++} END {for (k in n) print k"| x"n[k]}' | sort
    ;;
  timing)
    python3 scripts/timing_check.py --verifier $V --problem resources/problems/softmax_8192x16384_bf16.json \
      --candidate resources/baselines/softmax.cu --resources $ROOT/resources --out $OUT/timing_check.json > $OUT/timing_check.log 2>&1
    echo "timing rc=$?"; tail -30 $OUT/timing_check.log
    ;;
  reverify)
    for i in 1 2 3; do
      t0=$(now)
      $D/reach-cli verify --problem resources/problems/softmax_4096x8192_bf16.json --candidate resources/controls/positive/softmax.cu --json > $OUT/reverify_$i.json
      echo "reverify cached softmax (reach-cli verify, 100 reps + baseline): rc=$? wall $(since $t0) s"
    done
    for i in 1 2; do
      t0=$(now)
      $V --problem resources/problems/relu_16384x2048_f32.json --candidate resources/controls/positive/relu.cu > $OUT/reverify_relu_$i.json
      echo "reverify cached relu (reach-verify direct): rc=$? wall $(since $t0) s"
    done
    t0=$(now)
    REACH_CACHE_DIR=/tmp/reach-cache-cold $V --problem resources/problems/softmax_4096x8192_bf16.json --candidate resources/controls/positive/softmax.cu > $OUT/verify_cold.json
    echo "verify with an empty cache (nvcc for candidate and baseline): rc=$? wall $(since $t0) s"
    $D/reach-cli verify --problem resources/problems/softmax_kb_wide_bf16.json --candidate resources/controls/negative/softmax_chunked_1024.cu > $OUT/chunked_text.txt; echo "chunked rc=$?"
    head -40 $OUT/chunked_text.txt
    ;;
  evaluations)
    bash scripts/verifier_evaluations.sh "$OUT/evaluations"
    ;;
  gathers)
    nvcc -O3 -std=c++17 -arch=sm_90 -I resources/include -o $OUT/gather_ceiling tests/bench/gather_ceiling.cu &&
      $OUT/gather_ceiling | tee $OUT/gather_ceiling.txt
    rm -f $OUT/gather_ceiling
    ;;
  flush)
    nvcc -O3 -std=c++17 -arch=sm_90 -o $OUT/flush_cost tests/bench/flush_cost.cu &&
      $OUT/flush_cost | tee $OUT/flush_cost.txt
    rm -f $OUT/flush_cost
    ;;
  esac
done
echo "=== done $(date -u +%H:%M:%S)"
tar czf "$FINAL_OUT/verifier_run.tgz" -C "$OUT" .
