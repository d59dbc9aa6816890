#!/bin/bash
# Builds what the GPU machine runs (no Qt, CUDA on, Release) and stages it in .devrun/ (git-ignored,
# carried by the device tool): reach-verify, reach-cli, reach_gpu_tests, reach_readprofile (the
# reading-alone side of scripts/bench's classifier comparison, timed on the GPU machine's idle
# CPUs), and the host libraries they need that the GPU machine's image may lack. Run here, before
# a device call.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/env.sh
cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DREACH_BUILD_GUI=OFF \
  -DREACH_BUILD_BENCH=ON >/dev/null
cmake --build build/device --target reach-verify reach-cli reach_gpu_tests reach_readprofile
rm -rf .devrun && mkdir -p .devrun/lib
for b in app/reach-verify app/reach-cli tests/gpu/reach_gpu_tests tests/bench/reach_readprofile; do
  strip -o ".devrun/$(basename $b)" "build/device/$b"
done
# Libraries outside glibc/libstdc++/CUDA that the binaries link (ISA-L, SQLite, RE2).
for lib in $(ldd .devrun/reach-cli .devrun/reach-verify .devrun/reach_gpu_tests .devrun/reach_readprofile | awk '/=>/ {print $3}' | sort -u); do
  case "$lib" in *libisal*|*libsqlite3*|*libz.so*|*libre2*) cp -L "$lib" .devrun/lib/ ;; esac
done
du -sh .devrun
