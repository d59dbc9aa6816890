#!/bin/bash
# Device call: the GPU acceptance of issues 36, 37 and 38 that session_load.sh does not cover, in
# one call (stage first: scripts/device/stage.sh; KernelBench's suite files in .kbsuite/).
# Phases (PHASES=a,b,...; each under its own timeout; everything lands in $OUT), in this order:
#   load19    issue 38: KernelBench's 19_ReLU, honest, twice at once (seeds 1 and 2) beside other
#             red-team cases of both formats, JOBS19 (4) at a time on one lock and one ledger
#   gputests  every test of reach_gpu_tests (the C++ runner, the judge's clock, the kernels)
#   evidence  issue 37 on the GPU: DLRM's clamp_min problem verified here, its signature
#             stripped (a claimed pass), then `reach-cli integrate --device cuda` must verify it
#             again with a fresh seed before installing it; a forged pass beside a zeros
#             candidate must be refused (exit 2) and the workload never run
#   timing    Reach's median against triton.testing.do_bench (kb_acceptance.py --phases timing)
#   reverify  the 1 GiB problem re-verified warm through the server (kb_acceptance.py)
#   serial    the red team at seed 1, one job at a time (issue 38: the verdicts of session_load.sh's
#             concurrent run must be these), in the time left before SERIAL_T
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources REACH_CACHE_DIR=/tmp/reach-cache
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} PYTHONUNBUFFERED=1
mkdir -p /tmp/reach-cache && chmod 700 /tmp/reach-cache
W=/tmp/accept; mkdir -p $W
V=$ROOT/.devrun/reach-verify
CLI=$ROOT/.devrun/reach-cli
PHASES=${PHASES:-load19,gputests,evidence,timing,reverify,serial}
has() { [[ ",$PHASES," == *",$1,"* ]]; }
cleanup() { pkill -9 -f reach_kbworker 2>/dev/null; pkill -9 -f reach-verify 2>/dev/null; sleep 1; }
t_start=$(date +%s)
echo "=== start $(date -u +%H:%M:%S) $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader)"

if has load19; then
  echo "=== load19 $(date -u +%H:%M:%S)"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > $W/mem19.txt &
  sampler=$!
  REACH_GPU_LOCK=/tmp/reach-gpu0.lock timeout ${LOAD19_T:-220} python3 scripts/redteam.py --verifier $V \
    --device cuda --suite $ROOT/.kbsuite --seeds 1,2 --reps 30 --warmup 5 --jobs ${JOBS19:-4} --timeout 300 \
    --out $W/load19 --only ${LOAD19_ONLY:-gpu_honest_relu_19,gpu_honest_matmul,cpp_honest_add,gpu_clock_spread,gpu_relu_identity} \
    > $W/load19.log 2>&1
  echo "load19 exit $?"; cat $W/load19.log
  kill $sampler; echo "peak GPU memory used: $(sort -n $W/mem19.txt | tail -1) MiB"
  python3 - $W/load19 <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(os.path.join(sys.argv[1], "docs", "*.json"))):
    d = json.load(open(f)); r = d.get("reach") or {}; ri = r.get("roofline_inputs") or {}
    m = r.get("memory") or {}
    print(os.path.basename(f), d.get("verdict"), "wall", round(d.get("wall_seconds") or 0, 1),
          "queue", round(d.get("queue_s") or 0, 1), "median", (r.get("timing") or {}).get("median_us"),
          "copy GB/s", ri.get("copy_bandwidth_gbs") and round(ri["copy_bandwidth_gbs"]),
          "est GiB", m.get("estimated_bytes") and round(m["estimated_bytes"] / 2**30, 1),
          "admit_wait", m.get("admission_wait_s"), "reasons", [x[:100] for x in d.get("reasons", [])][:2])
PY
  cleanup
  tar czf $OUT/load19.tgz -C $W load19 load19.log mem19.txt 2>/dev/null
fi

if has gputests; then
  echo "=== gputests $(date -u +%H:%M:%S)"
  timeout ${GPUTESTS_T:-150} .devrun/reach_gpu_tests 2>&1 | grep -E "^\[  (FAILED|PASSED|  OK|SKIPPED) |tests ran|FAILED TEST" | tail -60
fi

if has evidence; then
  echo "=== evidence $(date -u +%H:%M:%S)"
  E=$W/ev; rm -rf $E; mkdir -p $E/rec
  timeout 60 $CLI extract datasets/profiles/h200-shapes/dlrm_inference.json.gz --out $E/bench --cover 0.99 | tail -2
  P=$E/bench/008_clamp_min_d9863ce8.py
  cp tests/data/integrate/clamp_min_where.py $E/rec/
  timeout 120 $CLI verify --problem $P --candidate $E/rec/clamp_min_where.py --precision bf16 --reps 20 \
    --json > $E/rec/verify.json 2> $E/verify.err; echo "verify exit $?"
  python3 - $E <<'PY'
import json, sys, os
e = sys.argv[1]
d = json.load(open(os.path.join(e, "rec/verify.json")))
print("verified here:", d.get("verdict"), "seed", d.get("seed"), "speedup", d.get("speedup"),
      "device", (d.get("device") or {}).get("name") if isinstance(d.get("device"), dict) else d.get("device"))
sig = [k for k in d if "signature" in k]
for k in sig:
    d.pop(k)
json.dump(d, open(os.path.join(e, "rec/claimed.json"), "w"))
# A stranger's zeros candidate beside a hand-edited pass (sigma 5) for it.
z = os.path.join(e, "rec/fast_clamp.py")
open(z, "w").write("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                   "    def forward(self, x):\n        return torch.zeros_like(x)\n")
import hashlib
d["candidate_file"] = z
d["candidate_sha256"] = hashlib.sha256(open(z, "rb").read()).hexdigest()
d["verdict"] = "pass"
d["reach"]["verdict"] = "pass"
d["reach"]["timing"]["median_us"] = d["reach"]["baselines"][0]["timing"]["median_us"] / 5
json.dump(d, open(os.path.join(e, "rec/forged.json"), "w"))
print("stripped:", sig)
PY
  t0=$(date +%s)
  timeout 200 $CLI integrate --benchmark $E/bench --records $E/rec/claimed.json --device cuda --runs 2 \
    --steps 20 --warmup 3 --all-passing --out $E/runs --json -- python3 tests/data/integrate/workload_clamp.py \
    --device cuda > $E/integrate.json 2> $E/integrate.err
  echo "integrate (claimed pass) exit $? in $(( $(date +%s) - t0 )) s"; tail -3 $E/integrate.err
  python3 - $E <<'PY'
import json, sys, os
e = sys.argv[1]
try:
    d = json.load(open(os.path.join(e, "integrate.json")))
except Exception as x:
    print("no document:", x); sys.exit()
for w in d.get("winners", []):
    print("winner", w.get("problem"), "evidence", w.get("evidence"), "|", (w.get("evidence_note") or "")[:160])
    r = w.get("reverify_document")
    if r and os.path.exists(r):
        a = json.load(open(r)); o = json.load(open(os.path.join(e, "rec/verify.json")))
        print("  re-verified:", a.get("verdict"), "seed", a.get("seed"), "(the claim's", o.get("seed"), ")",
              "same bytes", a.get("candidate_sha256") == o.get("candidate_sha256"), "speedup", a.get("speedup"))
print("runs", len(d.get("run_list", [])), "gpu_time_saved_share", d.get("gpu_time_saved_share"),
      "measured_on", d.get("measured_on"))
PY
  timeout 200 $CLI integrate --benchmark $E/bench --records $E/rec/forged.json --device cuda --runs 1 \
    --out $E/runs_forged -- python3 tests/data/integrate/workload_clamp.py --device cuda \
    > $E/forged.out 2> $E/forged.err
  echo "integrate (forged pass, zeros candidate) exit $? (2 expected)"; tail -1 $E/forged.err
  ls $E/runs_forged; python3 -c "
import json,sys,glob
for f in glob.glob('$E/runs_forged/reverify_*.json'):
    d=json.load(open(f)); print(f.split('/')[-1], d.get('verdict'), (d.get('reasons') or [''])[0][:150])"
  tar czf $OUT/evidence.tgz -C $W ev 2>/dev/null
  cleanup
fi

for ph in timing reverify; do
  if has $ph; then
    echo "=== $ph $(date -u +%H:%M:%S)"
    timeout ${KB_T:-200} python3 -u scripts/device/kb_acceptance.py --verifier $V --suite $ROOT/.kbsuite \
      --out $W/kb --jobs 4 --phases $ph --server-reverifies ${SERVER_REVERIFIES:-3} 2>&1 | tail -30
    cleanup
  fi
done
tar czf $OUT/kb.tgz -C $W kb 2>/dev/null

if has serial; then
  left=$(( ${SERIAL_T:-570} - ($(date +%s) - t_start) ))
  echo "=== serial $(date -u +%H:%M:%S) ($left s left)"
  if [ $left -gt 30 ]; then
    REACH_GPU_LOCK=/tmp/reach-gpu0.lock timeout $left python3 scripts/redteam.py --verifier $V \
      --device cuda --suite $ROOT/.kbsuite --seeds 1 --reps ${REPS:-30} --warmup 5 --jobs 1 --timeout 300 \
      --out $W/serial ${ONLY:+--only $ONLY} > $W/serial.log 2>&1
    echo "serial exit $?"; cat $W/serial.log | tail -40
    cleanup
    tar czf $OUT/serial.tgz -C $W serial serial.log 2>/dev/null
  fi
fi
echo "=== end $(date -u +%H:%M:%S)"
