#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace reach {

// The custom operators of serving stacks (vLLM, SGLang, FlashInfer) that Reach knows (issue 41,
// item 2): by the name a PyTorch profiler records for the call ("_C::fused_add_rms_norm",
// "sgl_kernel::rmsnorm"), what each recorded argument is, and the family of computation it
// belongs to. The one table of them: extraction writes a problem from it
// (core/benchmark/servingproblem.h) and headroom estimates its work (core/headroom/work.h).
// The names, schemas and semantics are each stack's own, read from its operator registrations
// and kernels (docs/serving-operators.md says where); an operator not here stays skipped.

enum class ServingFamily {
    RmsNorm,          // out = x * rsqrt(mean(x^2) + eps) * w
    GemmaRmsNorm,     // the same with (1 + w)
    FusedAddRmsNorm,  // r = x + residual; x = rms_norm(r); residual = r
    GemmaFusedAddRmsNorm,
    SiluAndMul,  // out = silu(x[..., :d]) * x[..., d:]
    GeluAndMul,  // erf GELU
    GeluTanhAndMul,
    RotaryEmbedding,       // query and key rotated at their positions (cos/sin cache rows)
    StaticScaledFp8Quant,  // out = fp8(clamp(x / scale))
    KvCacheWrite,          // key and value written into the paged caches at their slots
};

// What one recorded argument of a serving operator is.
enum class ServingRole {
    Output,     // written only (`Tensor! out`): not an input of the problem; its dtype says the
                // output's
    Input,      // a floating tensor read (and, for in-place operators, written: the problem
                // returns the new values instead)
    Optional,   // a floating tensor that may be None (rotary's key)
    Positions,  // integer positions: drawn in [0, rows of the cache argument)
    Slots,      // integer cache slots, one per token: distinct, drawn as a permutation
    Scale,      // a floating scale the operator divides by: drawn positive
    Scalar,     // a number the call passes on (eps, head_size, is_neox)
    Ignored,    // an argument of no effect on the values (enable_pdl, a stream handle)
    PerTensor,  // a group shape that must be left out (None): one scale for the whole tensor
};

struct ServingOperator {
    std::string_view name;   // as the profiler records it
    std::string_view stack;  // "vLLM", "SGLang", "FlashInfer"
    ServingFamily family;
    std::span<const ServingRole> roles;  // one per recorded argument, in the schema's order
    int cacheArgument = -1;  // Positions, Slots: the argument whose rows (slots) they index
};

// The first entry for a recorded operator name (an overload name after a '.' is ignored): its
// family and work formula, which every version of its schema shares; nullptr when Reach does
// not know it.
const ServingOperator* servingOperator(std::string_view op);
// The entry whose schema has that many arguments (an operator's schema grew across versions);
// nullptr when none has.
const ServingOperator* servingOperator(std::string_view op, size_t arguments);

// Every entry, in a fixed order (for documentation and tests).
std::span<const ServingOperator> servingOperators();

// The family's name in words ("fused add + RMS norm").
std::string_view servingFamilyName(ServingFamily family);

}  // namespace reach
