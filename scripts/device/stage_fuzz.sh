#!/bin/bash
# Stages the fuzz targets for the GPU machine's 16 CPUs (issue 14: 30 minutes per target is 6.5
# hours on this 2-core machine): builds build/fuzz (scripts/fuzz's preset), makes the seeds, and
# packs into .devfuzz/ (git-ignored, carried by the device tool) the targets without their DWARF
# (symbols kept, so reports still name functions), the host libraries they link that the GPU
# machine's image may lack, the seeds, and the corpus grown so far (build/fuzz/corpus), as one
# xz archive: the device tool carries 64 MiB. Run here before scripts/device/fuzz_session.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
[[ -f build/fuzz/build.ninja ]] || cmake --preset fuzz >/dev/null
nice -n 10 cmake --build --preset fuzz --target fuzz_all
seeds=build/fuzz/seeds
if [[ ! -d $seeds || tests/fuzz/make_seeds.py -nt $seeds ]]; then
  python3 tests/fuzz/make_seeds.py "$seeds"
  mkdir -p "$seeds/project"
  build/fuzz/tests/fuzz/fuzz_make_project_seed "$seeds/project/seed.reach"
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/corpus"
for b in build/fuzz/tests/fuzz/fuzz_*; do
  [[ $b == *fuzz_make_project_seed ]] && continue
  strip --strip-debug -o "$stage/bin/$(basename "$b")" "$b"
done
for lib in $(ldd "$stage"/bin/fuzz_* | awk '/=>/ {print $3}' | sort -u); do
  case "$lib" in *libisal*|*libsqlite3*|*libz.so*|*libre2*) cp -L "$lib" "$stage/lib/" ;; esac
done
cp -r "$seeds" "$stage/seeds"
[[ -d build/fuzz/corpus ]] && cp -r build/fuzz/corpus/. "$stage/corpus/"
rm -rf .devfuzz && mkdir -p .devfuzz
tar -C "$stage" -cf - bin lib seeds corpus | xz -T2 -6 > .devfuzz/fuzz.tar.xz
du -sh .devfuzz/fuzz.tar.xz
