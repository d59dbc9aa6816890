#pragma once

#include "core/base/callsignature.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reach {

// Which peak a call's FLOPs are held to (docs/headroom.md): GEMM-like work at the tensor-core
// rate of its input type, everything else at the FP32 vector rate.
enum class Peak {
    Vector,    // CUDA-core / vector FP32
    Fp32Gemm,  // FP32 inputs on a GEMM: the TF32 rate when the kernel runs TF32, else Vector
    Tf32,      // (not chosen by a formula; Fp32Gemm becomes it)
    Bf16,      // BF16 / FP16 tensor cores
    Fp8,       // FP8 tensor cores
};

// The minimal work of one operator call: every input read once (an expanded view, stride 0,
// only its distinct elements), every output written once (no re-reads, L2 reuse not assumed),
// and its arithmetic.
struct Work {
    double bytes = 0;
    double flops = 0;
    Peak peak = Peak::Vector;
};

// What the formulas know beside the shapes: the element size of TensorList arguments, whose
// "Input type" is only "TensorList" (read off the launched kernel's name; 0 when unknown).
struct WorkContext {
    int listElementBytes = 0;
};

// One entry of the work table: an ATen operator (exact name), the class it belongs to and its
// formula in words (the same text as docs/headroom.md).
struct WorkEntry {
    std::string_view op;
    std::string_view kind;  // "gemm", "conv", "attention", "elementwise", "reduction", ...
    std::string_view formula;
    std::optional<Work> (*work)(const std::vector<CallArg>& args, const WorkContext& ctx);
};

// The table, sorted by operator name (exact names), and the entries matched by name prefix
// (kernels torch.compile generated: triton_poi_*, triton_red_*, triton_per_*).
const std::vector<WorkEntry>& workTable();
const std::vector<WorkEntry>& inductorEntries();
// The serving stacks' operators (core/base/servingoperators.h), one entry each in that table's
// order, by exact name (an overload name after '.' ignored).
const std::vector<WorkEntry>& servingEntries();
// The exact entry, else the serving operator's, else the prefix entry that matches; nullptr
// when none.
const WorkEntry* findWorkEntry(std::string_view op);

// The work of one call of `op` with these inputs; nullopt when the table has no entry or the
// recorded inputs do not say enough (then the caller counts "no estimate", never a guess).
std::optional<Work> operatorWork(std::string_view op, const std::vector<CallArg>& args,
                                 const WorkContext& ctx = {});

// Bytes per element of a profiler type name ("c10::BFloat16" 2, "float" 4, "long int" 8, the
// FP8 types 1; core/base/callsignature.h's table); 0 for non-tensors ("Scalar", "", "TensorList")
// and unknown names.
int dtypeBytes(std::string_view type);

// The element size a kernel's name states: OpaqueType<N> (cat, copies), else the first C++
// element type in its template arguments (float, c10::BFloat16, ...); 0 when none.
int elementBytesFromKernelName(std::string_view kernel);

}  // namespace reach
