#!/bin/bash
# Sample evaluation set (issue 5 part 6): reach-verify on candidate kernels for Reach's operators
# at realistic sizes; raw JSON per (problem, candidate) into $1. Runs on the GPU machine.
set -u
DEST=${1:?destination dir}
mkdir -p "$DEST"
V=${REACH_VERIFY:-reach-verify}
R=resources
E=datasets/evaluations/h200/candidates
run() {  # problem label candidate
    "$V" --problem "$R/problems/$1.json" --candidate "$3" "${@:4}" > "$DEST/$1__$2.json" 2> "$DEST/$1__$2.stderr"
    echo "$1 $2 rc=$?"
}
for op_problem in softmax:softmax_4096x8192_bf16 log_softmax:log_softmax_4096x8192_bf16 \
    layernorm:layernorm_8192x4096_bf16 rmsnorm:rmsnorm_8192x4096_bf16 relu:relu_16384x2048_f32 \
    gelu:gelu_8192x4096_bf16 silu:silu_8192x4096_bf16 add:add_32M_f32 sum_rows:sum_rows_8192x8192_f32 \
    cumsum:cumsum_4096x4096_f32 embedding_bag_sum:embedding_bag_sum_dlrm_f32 \
    multi_embedding_concat:multi_embedding_concat_8x_bf16 dot_interaction:dot_interaction_dlrm_bf16 \
    matmul:matmul_4096_bf16; do
    op=${op_problem%%:*}; p=${op_problem#*:}
    run "$p" naive "$R/controls/positive/$op.cu"
    [ -f "$R/baselines/$op.cu" ] && run "$p" vectorized "$R/baselines/$op.cu"
done
run softmax_4096x8192_bf16 fused_online "$E/softmax_online.cu"
run softmax_8192x16384_bf16 fused_online "$E/softmax_online.cu"
run softmax_8192x16384_bf16 vectorized "$R/baselines/softmax.cu"
run multi_embedding_concat_8x_bf16 unfused_per_table "$E/multi_embedding_concat_per_table.cu"
run softmax_kb_wide_bf16 naive "$R/controls/positive/softmax.cu"
run softmax_kb_wide_bf16 neg_zeros "$R/controls/negative/zeros.cu"
run softmax_kb_wide_bf16 neg_partial_write_0p3 "$R/controls/negative/partial_write_0p3.cu"
run softmax_kb_wide_bf16 neg_chunked_1024 "$R/controls/negative/softmax_chunked_1024.cu"
run softmax_4096x8192_bf16 neg_nan_rows "$R/controls/negative/nan_rows.cu"
run layernorm_8192x4096_bf16 neg_off_by_one "$R/controls/negative/off_by_one_last_row.cu"
run sum_rows_8192x8192_f32 neg_data_race "$R/controls/negative/data_race.cu"
run relu_16384x2048_f32 fault_oob_write "$R/controls/fault/oob_write.cu"
run softmax_4096x8192_bf16 scale_x100 "$R/controls/positive/softmax.cu" --scale 100
