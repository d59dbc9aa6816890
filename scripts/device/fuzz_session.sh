#!/bin/bash
# Device call: every fuzz target at once, one per CPU, for SECONDS (default 510), going on from
# the corpus staged by scripts/device/stage_fuzz.sh; scripts/fuzz's options (ASan + UBSan, 10 s
# per input, 2 GiB, inputs up to 256 KiB). Then each corpus is merged down to the inputs that add
# coverage, and $OUT gets: summary.txt (per target: exit, executions, corpus size), the logs, any
# crashing input, and corpus.tar.xz.aa (.ab, ... past 15 MiB) for scripts/device/stage_fuzz.sh's next round (cat and unpack them into
# build/fuzz/corpus here).
set -u
secs=${1:-510}
ROOT=$PWD
work=/tmp/reachfuzz
rm -rf "$work" && mkdir -p "$work" && xz -dc .devfuzz/fuzz.tar.xz | tar -C "$work" -xf -
export LD_LIBRARY_PATH=$work/lib REACH_FUZZ_ROOT=$ROOT TMPDIR=/tmp
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$OUT/logs" "$OUT/artifacts" "$work/min"
echo "=== start $(date -u +%H:%M:%S), $(nproc) CPUs, $secs s per target"
for bin in "$work"/bin/fuzz_*; do
  t=${bin##*/fuzz_}
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t" "$work/seeds/$t"
  (cd "$work" && "$bin" "corpus/$t" "seeds/$t" -max_total_time="$secs" -timeout=10 \
     -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 -artifact_prefix="artifacts/$t/" \
     > "$OUT/logs/$t.log" 2>&1; echo $? > "$work/$t.rc") &
done
wait
echo "=== fuzzing done $(date -u +%H:%M:%S); merging"
for bin in "$work"/bin/fuzz_*; do
  t=${bin##*/fuzz_}
  mkdir -p "$work/min/$t"
  (cd "$work" && timeout 60 "$bin" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
     "min/$t" "corpus/$t" > "$work/$t.merge.log" 2>&1 || cp -r "corpus/$t/." "min/$t/") &
done
wait
{
  for bin in "$work"/bin/fuzz_*; do
    t=${bin##*/fuzz_}
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/logs/$t.log" | grep -o '[0-9]*$')
    echo "$t exit=$(cat "$work/$t.rc") execs=${execs:-?} corpus=$(ls "$work/corpus/$t" | wc -l) merged=$(ls "$work/min/$t" | wc -l)"
  done
} | tee "$OUT/summary.txt"
for d in "$work"/artifacts/*/; do
  t=$(basename "$d")
  if [[ -n $(ls "$d") ]]; then
    tar -C "$d" -czf "$OUT/artifacts/$t.tar.gz" .
    grep -E 'ERROR|SUMMARY|==[0-9]+==' "$OUT/logs/$t.log" | head -5
  fi
done
rmdir "$OUT/artifacts" 2>/dev/null
# Logs: one archive (at most eight files come back).
tar -C "$OUT" -czf "$OUT/logs.tar.gz" logs && rm -rf "$OUT/logs"
tar -C "$work/min" -cf - . | xz -T0 -6 | split -b 15M - "$OUT/corpus.tar.xz."
ls -la "$OUT"
echo "=== end $(date -u +%H:%M:%S)"
