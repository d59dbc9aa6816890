#!/bin/bash
# Device call (issue 13): two builds of the split reader, the one before (.devrun/prev/, copied by
# hand) and this one (.devrun/), interleaved three times on the ~1 GB scaled qwen2.5-14b and
# shaped resnet50 traces, with the md5 of each output (they must agree); then sha256sum and cat of
# the qwen trace for what hashing and reading alone cost on this CPU.
export LD_LIBRARY_PATH=$PWD/.devrun/lib
Q=/tmp/qwen2.5-14b_scaled_1gb.json; S=/tmp/resnet50_shapes_scaled_1gb.json
python3 tests/bench/scale_trace.py datasets/profiles/h200/qwen2.5-14b_inference.json.gz $Q 1000 >/dev/null &
python3 tests/bench/scale_trace.py datasets/profiles/h200-shapes/resnet50_inference.json.gz $S 1000 >/dev/null &
wait; cat $Q $S >/dev/null
grep -o -m1 'sha_ni' /proc/cpuinfo || echo "no sha_ni"
for f in $Q $S; do for i in 1 2 3; do for b in .devrun/prev/reach_readprofile .devrun/reach_readprofile; do
  /usr/bin/time -f "$(basename $f) $b: %e s wall, %U+%S cpu, %M KB" $b $f > /tmp/o.json; md5sum < /tmp/o.json | cut -c1-8
done; done; done 2>&1
/usr/bin/time -f "sha256sum: %e s" sha256sum $Q 2>&1 | tail -1
/usr/bin/time -f "cat: %e s" cat $Q 2>&1 > /dev/null | tail -1
