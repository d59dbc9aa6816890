#!/bin/bash
# Device call (issue 36, "Time the judge owns"): the judge-owned clock of KernelBench-format
# verification, on the Python worker alone (no reach-verify build needed). Everything lands in
# $OUT. Phase (PHASES=worker):
#   worker   `reach_kbworker.py reach` on honest and cheating candidates (CASES=a,b to choose),
#            each beside triton.testing.do_bench of the same call, summarized
set -u
ROOT=$PWD
export PYTHONUNBUFFERED=1 PATH=/usr/local/cuda/bin:$PATH
PHASES=${PHASES:-worker}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"
if has worker; then
  echo "=== worker $(date -u +%H:%M:%S)"
  P=$ROOT/resources/kernelbench/problems
  C=$ROOT/resources/kernelbench/candidates
  R=$ROOT/tests/data/redteam/gpu
  mkdir -p /tmp/jc && chmod 700 /tmp/jc
  run_one() {  # name precision problem candidate [extra]
    local name=$1 prec=$2 prob=$3 cand=$4; shift 4
    timeout 300 python3 resources/python/reach_kbworker.py reach --problem $prob --candidate $cand \
      --precision $prec --device cuda --cache-dir /tmp/jc --seeds 1 --reps 100 --warmup 10 "$@" \
      > $OUT/w_$name.json 2> /tmp/jc/$name.err
    echo "--- $name exit $?"
    python3 - $OUT/w_$name.json $prob $cand $prec <<'PY'
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
print("verdict", d.get("verdict"), "speedup", round(d.get("speedup") or 0, 3), "basis", d.get("time_basis"))
for r in (d.get("reasons") or [])[:4]:
    print("  reason:", r[:200])
t = d.get("timing") or {}
cal = d.get("calibration") or {}
if t:
    c = t["clock"]
    print("  figure med %.2f p10 %.2f p90 %.2f | runner claim med %.2f | redrawn %s | gap %.2f stretch %.1f tol %.1f" % (
        t["median_us"], t["p10_us"], t["p90_us"], t.get("runner_median_us") or -1, t.get("redrawn"),
        cal.get("gap_us", -1), cal.get("stretch_us", -1), cal.get("stretch_tolerance_us", -1)))
    print("  judge-runner gap med %.2f; calib gap med %.2f" % (
        st.median([a - b for a, b in zip(c["judge_us"], c["runner_us"])]),
        st.median([a - b for a, b in zip(cal["clock"]["judge_us"], cal["clock"]["runner_us"])])))
for b in d.get("baselines") or []:
    print("  baseline", b["kind"], b.get("us"))
ri = d.get("roofline_inputs") or {}
print("  roofline bytes", ri.get("minimal_bytes"), "flops", ri.get("flops"), "bw", ri.get("copy_bandwidth_gbs"))
print("  notes", [n[:150] for n in d.get("notes", [])][:5])
if d.get("verdict") not in ("pass", "fail"):
    print("  log", (d.get("log") or "")[-1200:])
    print("  runner_log", (d.get("runner_log") or "")[-1200:])
# do_bench of the same call, for comparison
try:
    import importlib.util, torch, triton.testing
    def load(p, n):
        s = importlib.util.spec_from_file_location(n, p); m = importlib.util.module_from_spec(s); s.loader.exec_module(m); return m
    prob = load(sys.argv[2], "prob"); cand = load(sys.argv[3], "cand")
    dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[4]]
    torch.manual_seed(1)
    init = prob.get_init_inputs()
    x = [a.to(device="cuda", dtype=dt) if isinstance(a, torch.Tensor) and a.is_floating_point() else (a.cuda() if isinstance(a, torch.Tensor) else a) for a in prob.get_inputs()]
    m = cand.ModelNew(*init).to(device="cuda", dtype=dt)
    e = prob.Model(*init).to(device="cuda", dtype=dt)
    with torch.no_grad():
        a = triton.testing.do_bench(lambda: m(*x), warmup=25, rep=200, return_mode="median") * 1000
        b = triton.testing.do_bench(lambda: e(*x), warmup=25, rep=200, return_mode="median") * 1000
    print("  do_bench candidate %.2f us, Model %.2f us" % (a, b))
except Exception as ex:
    print("  do_bench failed:", ex)
PY
    tail -3 /tmp/jc/$name.err
  }
  CASES=${CASES:-softmax_triton,matmul_forged,relu_honest,matmul_private,relu_triton,relu_late}
  want() { [[ ",$CASES," == *",$1,"* ]]; }
  run() { want $1 && run_one "$@"; return 0; }
  run softmax_triton bf16 $P/reach_01_softmax.py $C/reach_01_softmax/triton_fused.py
  run matmul_forged fp32 $P/reach_09_matmul.py $R/elapsed_time_short.py
  run relu_honest fp32 $P/reach_07_relu.py $R/honest_relu.py
  run matmul_private fp32 $P/reach_09_matmul.py $R/private_stream.py
  run relu_triton fp32 $P/reach_07_relu.py $C/reach_07_relu/triton_fused.py
  run relu_late bf16 $P/reach_07_relu.py $R/late_empty_like.py
fi
echo "=== end $(date -u +%H:%M:%S)"
