#!/bin/bash
# Device call for issue 42's scale goal: 100 GB of rank traces at >= 5 GB/s in <= 2 GB of memory
# on the GPU machine's 16 cores, against one rank at a time in the same run
# (tests/bench/rank_run.py; the run is made on the machine from HTA's sampled DLRM rank: RANKS
# ranks of RANK_MB MB of JSON, ~10 GB of gzip on disk). Stage first: scripts/device/stage.sh.
# BASELINE_RANKS bounds the one-at-a-time side (its GB/s is over the ranks it read).
set -u
ROOT=$PWD
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} REACH_RESOURCES=$ROOT/resources
W=${RANKS_DIR:-/tmp/rankrun}
echo "=== ranks $(date -u +%H:%M:%S) $(nproc) cores, $(df -h /tmp | tail -1 | awk '{print $4}') free"
timeout ${RANKS_T:-300} python3 tests/bench/rank_run.py \
  datasets/profiles/public/hta_dlrm_sampled_rank0_a100.json.gz $W --ranks ${RANKS:-64} \
  --rank-mb ${RANK_MB:-1560} --cli .devrun/reach-cli --baseline-ranks ${BASELINE_RANKS:-16} 2>&1 | tail -12
echo "ranks exit $? at $(date -u +%H:%M:%S)"
rm -rf $W
