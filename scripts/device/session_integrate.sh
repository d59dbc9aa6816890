#!/bin/bash
# Device call: the verified winners put back into DLRM and ResNet-50 inference (issue "Put the
# verified kernels back", docs/integration.md). Stage here first: scripts/device/stage.sh, then
# the extracted folders .devrun/bench/dlrm_inference (--cover 0.99) and
# .devrun/bench/resnet50_inference (reach-cli extract on datasets/profiles/h200-shapes).
# Phases (PHASES=a,b):
#   sweep      scripts/device/sweep_candidates.py on each entry of SWEEPS ("PROBLEM=CANDIDATE=
#              NAME:V1,V2/NAME:V1,V2 ..."): our Triton candidates' settings timed against PyTorch
#   overhead   scripts/integrate_overhead.py --device cuda: the override's host cost per call
#   verify     each PROBLEM=CANDIDATE of CANDIDATES (PROBLEM under .devrun/bench/, CANDIDATE under
#              tests/data/benchmark/) verified, in PRECISION when set, else in reach-verify's
#              default (an extracted problem's recorded call's); the documents in .devrun/rec/
#              and $OUT/rec/
#   integrate  reach-cli integrate --runs RUNS --steps STEPS [--host-path HOST_PATH] on each of
#              WORKLOADS (issue 41 item 4: HOST_PATH=python and native, CONTROL=1, RUNS=5), the workload
#              being scripts/device/profile_workloads.py --only W --reach-steps; its document in
#              $OUT/integrate_W.json (the traces stay on the machine)
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
mkdir -p /tmp/reach-cache .devrun/rec $OUT/rec && chmod 700 /tmp/reach-cache
PHASES=${PHASES:-verify,integrate}
WORKLOADS=${WORKLOADS:-dlrm_inference resnet50_inference}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used --format=csv,noheader)"
if has sweep; then
  for e in ${SWEEPS:-}; do
    IFS='=' read -r p c g <<< "$e"
    timeout ${SWEEP_T:-120} python3 scripts/device/sweep_candidates.py .devrun/bench/$p \
      tests/data/benchmark/$c $(tr '/:' ' =' <<< "$g") 2>&1 | grep -v Warning | tail -20
  done
fi
if has overhead; then
  timeout 120 python3 scripts/integrate_overhead.py --device cuda 2>&1 | tail -12
fi
if has verify; then
  for pc in ${CANDIDATES:-}; do
    P=.devrun/bench/${pc%%=*}; C=tests/data/benchmark/${pc#*=}; n=$(basename $P .py)
    t0=$(date +%s)
    timeout ${VERIFY_T:-150} .devrun/reach-verify --problem $P --candidate $C \
      ${PRECISION:+--precision $PRECISION} \
      > .devrun/rec/$n.json 2> /tmp/verify_$n.err
    echo "verify $n with $(basename $C): exit $? in $(( $(date +%s) - t0 )) s"
    cp .devrun/rec/$n.json $OUT/rec/
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); t=d.get('timing') or {}
print(' ', d['verdict'], d.get('reasons', [])[:2], 'median', t.get('median_us'), 'speedup', d.get('speedup'))" \
      .devrun/rec/$n.json || tail -5 /tmp/verify_$n.err
  done
fi
if has integrate; then
  for w in $WORKLOADS; do
    t0=$(date +%s)
    timeout ${INTEGRATE_T:-300} .devrun/reach-cli integrate --benchmark .devrun/bench/$w \
      --records .devrun/rec --trust tests/data/benchmark --runs ${RUNS:-5} --steps ${STEPS:-10} \
      --warmup 3 --wall-steps ${WALL_STEPS:-10} ${CONTROL:+--control} \
      ${HOST_PATH:+--host-path $HOST_PATH} --out /tmp/int_$w --json -- python3 scripts/device/profile_workloads.py \
      --only $w --reach-steps 100000 --out /tmp/pw_$w > $OUT/integrate_$w.json 2> $OUT/integrate_$w.err
    echo "integrate $w: exit $? in $(( $(date +%s) - t0 )) s"; tail -3 $OUT/integrate_$w.err
    python3 - $OUT/integrate_$w.json <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
m = d["measured"]; x = d.get("exact_projection") or {}
print("  winners", [(w["problem"], round(w["sigma"], 3), [r["substituted"] for r in w["runs"]]) for w in d["winners"]])
print("  per step", d["per_step"])
print("  measured gpu", m["gpu_time_saved_share"], "\n  measured wall", m["wall_clock_saved_share"])
print("  measured wall under the profiler", m.get("wall_clock_under_profiler_saved_share"))
print("  hooks only", m.get("hooks_only"))
for w in d["winners"]:
    for k in ("host_us_per_call", "host_us_per_call_unprofiled"):
        print("  ", k, w["problem"], [r.get(k) for r in w["runs"]],
              "control", [r.get(k) for r in (w.get("control_runs") or [])])
print("  exact projection", x.get("saved_share_of_gpu_time"), x.get("saved_interval"), "study", (x.get("study") or {}).get("saved_share_of_gpu_time"))
pc = (d.get("diff") or {}).get("projection_check") or {}
print("  diff projection_check total", (pc.get("total") or {}))
print("  warnings", d["warnings"])
PY
  done
fi
echo "=== end $(date -u +%H:%M:%S)"
