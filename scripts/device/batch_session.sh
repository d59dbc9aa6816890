#!/bin/bash
# Batch verification on the GPU machine (issue 15, docs/batch.md "What was measured"): 40 real
# jobs (26 C++ controls and baselines, 14 KernelBench-format candidates, one per problem) run one
# by one with `reach-cli verify --problem --candidate` and as one `reach-cli verify --batch`, each
# mode with its own empty compile cache, then verdicts and wall times compared. On a host with
# several GPUs, `scaling` runs the batch at 1, 2, 4 and 8 GPUs (jobs per hour) and `spread` runs
# every job once on every GPU (--each-gpu) for the cross-GPU timing spread.
# Stage first (here): scripts/device/stage.sh; then on the device, from the repository root,
# carrying .devrun:  scripts/device/batch_session.sh PHASE...
#   phases: jobs onebyone-cpp onebyone-kb batch batch2 compare scaling spread
# Each phase stays under the device tool's 10 minutes per command on one H200 (KernelBench jobs
# run without the torch.compile baseline for that reason: --no-compile-baseline in both modes).
set -u
ROOT=$PWD
OUT=${OUT:-/tmp/reach-out}
W=/tmp/reach-batch
mkdir -p "$OUT" "$W"
export REACH_RESOURCES=$ROOT/resources PATH=/usr/local/cuda/bin:$PATH
PYLIBS=$(python3 -c "import nvidia.cublas,os;print(os.path.join(nvidia.cublas.__path__[0],'lib'))" 2>/dev/null)
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:/usr/local/cuda/lib64:${PYLIBS}:${LD_LIBRARY_PATH:-}
export REACH_VERIFY=${REACH_VERIFY:-$ROOT/.devrun/reach-verify}
CLI=${REACH_CLI:-$ROOT/.devrun/reach-cli}
ARGS=(--reps 100 --no-compile-baseline)
now() { date +%s.%N; }
since() { python3 -c "import sys,time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$1"; }

for phase in "$@"; do
  echo "=== $phase $(date -u +%H:%M:%S)"
  case $phase in
  jobs)
    # 26 C++ (every control but the 20 s hang and the multi-GPU-irrelevant duplicates) + 14 .py.
    python3 - "$ROOT/resources" "$W/jobs.json" <<'PY'
import json, sys
res, out = sys.argv[1], sys.argv[2]
cpp = [c for c in json.load(open(f"{res}/controls/controls.json"))["controls"]
       if c["name"] != "fault_hang"][:26]
kb, seen = [], set()
for c in json.load(open(f"{res}/kernelbench/controls.json"))["controls"]:
    if c["problem"] not in seen and c.get("expect") == "pass":
        seen.add(c["problem"])
        kb.append(c)
jobs = [{"problem": f"{res}/{c['problem']}", "candidate": f"{res}/{c['candidate']}"} for c in cpp]
jobs += [{"problem": f"{res}/kernelbench/{c['problem']}",
          "candidate": f"{res}/kernelbench/{c['candidate']}"} for c in kb[:14]]
json.dump(jobs, open(out, "w"), indent=1)
print(len(cpp), "C++ and", len(kb[:14]), "KernelBench-format jobs ->", out)
PY
    cp "$W/jobs.json" "$OUT/jobs.json"
    ;;
  onebyone-cpp|onebyone-kb)
    export REACH_CACHE_DIR=$W/cache-onebyone
    kind=${phase#onebyone-}
    t0=$(now)
    python3 - "$W/jobs.json" "$kind" > "$W/list-$kind.txt" <<'PY'
import json, sys
for j in json.load(open(sys.argv[1])):
    if (sys.argv[2] == "kb") == j["candidate"].endswith(".py"):
        print(j["problem"], j["candidate"])
PY
    : > "$OUT/onebyone-$kind.jsonl"
    while read -r p c; do
      s=$(now)
      "$CLI" verify --problem "$p" --candidate "$c" "${ARGS[@]}" --json > "$W/one.json" 2> "$W/one.err"
      python3 -c "import json,sys; d=json.load(open('$W/one.json')) if open('$W/one.json').read().strip() else {'verdict':'(none)'}; print(json.dumps({'problem':'$p','candidate':'$c','verdict':d.get('verdict'),'median_us':(d.get('timing') or {}).get('median_us'),'wall_s':float('$(since $s)')}))" >> "$OUT/onebyone-$kind.jsonl"
    done < "$W/list-$kind.txt"
    echo "one by one ($kind): $(since $t0) s for $(wc -l < "$W/list-$kind.txt") jobs"
    ;;
  batch|batch2)
    per=1; [[ $phase == batch2 ]] && per=2
    export REACH_CACHE_DIR=$W/cache-$phase
    rm -rf "$REACH_CACHE_DIR" "$W/$phase.reach"*
    t0=$(now)
    "$CLI" verify --batch "$W/jobs.json" --project "$W/$phase.reach" --gpus all --jobs-per-gpu $per \
      "${ARGS[@]}" --json > "$OUT/$phase.json" 2> "$OUT/$phase.progress.txt"
    echo "batch (jobs per GPU $per): $(since $t0) s, exit $?"
    tail -2 "$OUT/$phase.progress.txt"
    ;;
  compare)
    python3 - "$OUT" <<'PY' | tee "$OUT/compare.txt"
import json, os, sys
out = sys.argv[1]
one = {}
wall_one = 0.0
for kind in ("cpp", "kb"):
    p = f"{out}/onebyone-{kind}.jsonl"
    if os.path.exists(p):
        for line in open(p):
            r = json.loads(line)
            one[(r["problem"], r["candidate"])] = r
            wall_one += r["wall_s"]
print(f"one by one: {len(one)} jobs, {wall_one:.1f} s (sum of walls)")
for b in ("batch", "batch2"):
    p = f"{out}/{b}.json"
    if not os.path.exists(p):
        continue
    d = json.load(open(p))
    same = diff = 0
    for r in d["results"]:
        o = one.get((r["problem_file"], r["candidate_file"]))
        if o is None:
            continue
        if o["verdict"] == r["verdict"]:
            same += 1
        else:
            diff += 1
            print(f"  {b}: verdict differs: {os.path.basename(r['candidate_file'])}: "
                  f"one by one {o['verdict']}, batch {r['verdict']}")
    print(f"{b} (jobs per GPU {d['jobs_per_gpu']}): {d['done']} jobs in {d['wall_seconds']:.1f} s "
          f"({d['jobs_per_hour']:.0f} jobs/h), {wall_one / d['wall_seconds']:.2f}x faster than one "
          f"by one; verdicts same {same}, different {diff}; {d['verdicts']}")
PY
    ;;
  scaling)
    n=$("$REACH_VERIFY" --device-info | python3 -c "import json,sys; print(json.load(sys.stdin).get('device_count',0))")
    for g in 1 2 4 8; do
      (( g <= n )) || break
      gpus=$(seq -s, 0 $((g - 1)))
      export REACH_CACHE_DIR=$W/cache-scale-$g
      rm -rf "$REACH_CACHE_DIR"
      "$CLI" verify --batch "$W/jobs.json" --gpus "$gpus" "${ARGS[@]}" --json > "$W/scale-$g.json" 2>/dev/null
      python3 -c "import json; d=json.load(open('$W/scale-$g.json')); print('$g GPU(s): %d jobs in %.1f s, %.0f jobs/h' % (d['done'], d['wall_seconds'], d['jobs_per_hour']))" | tee -a "$OUT/scaling.txt"
    done
    ;;
  spread)
    export REACH_CACHE_DIR=$W/cache-spread
    "$CLI" verify --batch "$W/jobs.json" --project "$W/spread.reach" --gpus all --each-gpu \
      "${ARGS[@]}" --json > "$OUT/spread.json" 2>/dev/null
    python3 -c "import json; d=json.load(open('$OUT/spread.json')); s=d['timing_spread']; print(len(s), 'candidates timed on several GPUs;', sum(x['exceeds'] for x in s), 'above 3 %'); [print('  %-50s %.1f %%' % (x['label'][:50], 100*x['spread'])) for x in s[:15]]" | tee "$OUT/spread.txt"
    ;;
  *) echo "unknown phase $phase" ;;
  esac
done
