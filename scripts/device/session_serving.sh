#!/bin/bash
# Device call for issue 41, item 2: the serving operators' problems on the GPU machine's PyTorch
# (2.11, which has FP8): extract the vLLM layer of tests/data/kineto/serving_vllm.json (every
# signature), check each problem against its operator's formula (the FP8 one included), and verify
# the honest candidates and the cheats of tests/data/serving on the GPU. Stage first
# (scripts/device/stage.sh).
set -u
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH REACH_RESOURCES=$ROOT/resources PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$ROOT/.devrun/lib:${LD_LIBRARY_PATH:-} REACH_CACHE_DIR=/tmp/reach-cache-serving
mkdir -p -m 700 $REACH_CACHE_DIR
S=/tmp/serving; rm -rf $S
echo "=== serving $(date -u +%H:%M:%S)"
.devrun/reach-cli extract tests/data/kineto/serving_vllm.json --out $S --cover 1 | head -9
python3 tests/app/check_serving_problems.py $S/*.py
for c in "silu_and_mul silu_and_mul_torch.py" "fused_add_rms_norm fused_add_rms_norm_torch.py" \
         "rotary_embedding rotary_neox_torch.py" "fused_add_rms_norm fused_add_rms_norm_stale_residual.py" \
         "reshape_and_cache_flash kv_cache_zeros.py" "rotary_embedding rotary_unrotated.py"; do
  set -- $c
  p=$(ls $S/*_$1_*.py | head -1)
  timeout ${SERVING_T:-60} .devrun/reach-cli verify --problem $p --candidate tests/data/serving/$2 \
    --reps 30 --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin); r = d.get('reach') or {}
print('$2', d.get('verdict'), 'median', (r.get('timing') or {}).get('median_us'),
      'eager', ((r.get('baselines') or [{}])[0].get('timing') or {}).get('median_us'),
      'reasons', [x[:90] for x in d.get('reasons', [])][:2])"
done
echo "=== serving end $(date -u +%H:%M:%S)"
