"""Writes serving_vllm.json: a Kineto trace in the form torch.profiler (record_shapes=True) writes
for a vLLM decoder layer's custom operators, by hand (no vLLM trace may be shipped): each
operator call a cpu_op with its recorded arguments in the schema's order (vLLM
csrc/torch_bindings.cpp; docs/serving-operators.md), its launch (cudaLaunchKernel, the same
correlation and External id) and its kernel, named as vLLM's kernels are. Four layers of one
step of 256 tokens, Llama-8B shapes (hidden 4096, 32 query heads and 8 KV heads of 128,
intermediate 14336), with an FP8 quantisation before each GEMM, and a KV-cache write that Reach's
library does not cover (it stays skipped, with why). Run: python3 make_serving_vllm.py."""
import json
import os

T, HID, QH, KVH, HD, INTER, MAXPOS = 256, 4096, 32, 8, 128, 14336, 8192
BF, F8, FL, LONG = "c10::BFloat16", "c10::Float8_e4m3fn", "float", "long int"

CALLS = [
    # name, dims, types, concrete, strides, kernel, grid, kernel us
    ("_C::fused_add_rms_norm", [[T, HID], [T, HID], [HID], []], [BF, BF, BF, "Scalar"],
     ["", "", "", "1e-05"], [[HID, 1], [HID, 1], [1], []],
     "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16*, "
     "c10::BFloat16 const*, float, int, int)", [T, 1, 1], 9.5),
    ("_C::static_scaled_fp8_quant", [[T, HID], [T, HID], [1]], [F8, BF, FL], ["", "", ""],
     [[HID, 1], [HID, 1], [1]],
     "void vllm::scaled_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>(c10::Float8_e4m3fn*, "
     "c10::BFloat16 const*, float const*, long)", [1024, 1, 1], 4.4),
    ("aten::mm", [[T, HID], [HID, (QH + 2 * KVH) * HD]], [BF, BF], ["", ""],
     [[HID, 1], [1, HID]], "nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT", [132, 1, 1], 41.0),
    ("_C::rotary_embedding", [[T], [T, QH * HD], [T, KVH * HD], [], [MAXPOS, HD], []],
     [LONG, BF, BF, "Scalar", BF, "Scalar"], ["", "", "", "128", "", "True"],
     [[1], [QH * HD, 1], [KVH * HD, 1], [], [HD, 1], []],
     "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
     "c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)", [T, 1, 1], 6.0),
    ("_C_cache_ops::reshape_and_cache_flash",
     [[T, KVH, HD], [T, KVH, HD], [2048, 16, KVH, HD], [2048, 16, KVH, HD], [T], [], [], []],
     [BF, BF, BF, BF, LONG, "", FL, FL], ["", "", "", "", "", "", "", ""],
     [[KVH * HD, HD, 1], [KVH * HD, HD, 1], [16 * KVH * HD, KVH * HD, HD, 1],
      [16 * KVH * HD, KVH * HD, HD, 1], [1], [], [], []],
     "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
     "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, "
     "__nv_bfloat16*, long const*, long, long, long, long, int, int, int, float const*, "
     "float const*)", [T, 1, 1], 7.3),
    ("_C::silu_and_mul", [[T, INTER], [T, 2 * INTER]], [BF, BF], ["", ""],
     [[INTER, 1], [2 * INTER, 1]],
     "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>"
     "(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)", [T, 1, 1], 12.0),
    ("_C::rms_norm", [[T, HID], [T, HID], [HID], []], [BF, BF, BF, "Scalar"],
     ["", "", "", "1e-05"], [[HID, 1], [HID, 1], [1], []],
     "void vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, c10::BFloat16 const*, "
     "c10::BFloat16 const*, float, int, int)", [T, 1, 1], 8.0),
]


def main():
    events = []
    ts, ext, corr = 1_000_000.0, 1, 100
    for _layer in range(4):
        for name, dims, types, concrete, strides, kernel, grid, us in CALLS:
            events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 7000, "tid": 7000,
                           "ts": ts, "dur": 12.0,
                           "args": {"External id": ext, "Record function id": 0, "Ev Idx": ext,
                                    "Input Dims": dims, "Input type": types,
                                    "Input Strides": strides, "Concrete Inputs": concrete}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "pid": 7000, "tid": 7000, "ts": ts + 4, "dur": 5.0,
                           "args": {"External id": ext, "cbid": 211, "correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7,
                           "ts": ts + 20, "dur": us,
                           "args": {"External id": ext, "queued": 0, "device": 0, "context": 1,
                                    "stream": 7, "correlation": corr, "grid": grid,
                                    "block": [256, 1, 1]}})
            ts += max(14.0, us + 2)
            ext += 1
            corr += 1
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
                                 "totalGlobalMem": 85029158912, "computeMajor": 9,
                                 "computeMinor": 0, "numSms": 132}],
           "traceEvents": events}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serving_vllm.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
