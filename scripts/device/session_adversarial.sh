#!/bin/bash
# Device call: KernelBench's two adversarial kernels that session 5 could not re-run
# (zero_out, non_default_stream) against 1_Square_matrix_multiplication_, fp32, one seed, no
# torch.compile baseline (the honest time is compared with eager torch.matmul, i.e. cuBLAS). The
# suite files travel in the git-ignored .kbsuite/ (third-party code, never committed). Both jobs
# start at once so their load_inline builds overlap; the verifier's timing lock keeps their timed
# loops apart. Each result is written to $OUT as soon as it lands.
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
S=$ROOT/.kbsuite
echo "=== start $(date -u +%H:%M:%S)"
for k in adversarial_zero_out_kernel adversarial_non_default_stream_kernel; do
  ( t0=$(date +%s.%N)
    $ROOT/.devrun/reach-verify --problem $S/level1/1_Square_matrix_multiplication_.py \
      --candidate $S/candidates/$k.py --precision fp32 --seed-count 1 --no-compile-baseline \
      --worker-timeout 300 > $OUT/$k.json 2> $OUT/$k.err
    echo "$k exit $? wall $(python3 -c "import time,sys;print(round(time.time()-float(sys.argv[1]),1))" $t0) s" ) &
done
wait
for k in adversarial_zero_out_kernel adversarial_non_default_stream_kernel; do
  python3 - $OUT/$k.json <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[1], "no document", e); sys.exit()
t = d.get("timing") or {}
kb = d.get("kernelbench") or {}
print(sys.argv[1].split("/")[-1], "verdict", d.get("verdict"), "flags", d.get("flags"),
      "fooled", d.get("fooled"), "kb", kb.get("correctness"), kb.get("runtime_ms"),
      "median_us", t.get("median_us"), "event_median_us", t.get("event_median_us"),
      "baseline", d.get("baseline"), "reasons", (d.get("reasons") or [])[:3])
PY
done
echo "=== end $(date -u +%H:%M:%S)"
