#include "core/base/servingoperators.h"

#include <array>

namespace reach {

namespace {

using R = ServingRole;

// Each schema as its stack registers it, every version's (docs/serving-operators.md cites where
// each was read); a recorded call is matched by name and argument count.
// vLLM csrc/torch_bindings.cpp: rms_norm(Tensor! result, Tensor input, Tensor? weight, float
// epsilon) (the weight optional in the newest, required before)
constexpr std::array kOutInWeightEps{R::Output, R::Input, R::Optional, R::Scalar};
// vLLM: fused_add_rms_norm(Tensor! input, Tensor! residual, Tensor? weight, float epsilon)
constexpr std::array kInResWeightEps{R::Input, R::Input, R::Optional, R::Scalar};
// SGLang sgl-kernel: rmsnorm(Tensor! output, Tensor input, Tensor weight, float eps,
// bool enable_pdl) (int cuda_stream before enable_pdl in early 2025)
constexpr std::array kOutInWeightEpsPdl{R::Output, R::Input, R::Input, R::Scalar, R::Ignored};
// SGLang: fused_add_rmsnorm(Tensor! input, Tensor! residual, Tensor weight, float eps[,
// bool enable_pdl | int cuda_stream])
constexpr std::array kInResWeightEpsPdl{R::Input, R::Input, R::Input, R::Scalar, R::Ignored};
constexpr std::array kInResWeightEpsSgl{R::Input, R::Input, R::Input, R::Scalar};
// vLLM and SGLang: silu_and_mul(Tensor! result, Tensor input) (gelu_and_mul, gelu_tanh_and_mul
// alike)
constexpr std::array kOutIn{R::Output, R::Input};
// vLLM: rotary_embedding(Tensor positions, Tensor! query, Tensor!? key, int head_size,
//                        Tensor cos_sin_cache, bool is_neox[, int rope_dim_offset=0,
//                        bool inverse=False])
constexpr std::array kRotary{R::Positions, R::Input, R::Optional, R::Scalar, R::Input, R::Scalar};
constexpr std::array kRotaryOffset{R::Positions, R::Input,  R::Optional, R::Scalar,
                                   R::Input,     R::Scalar, R::Scalar,   R::Scalar};
// vLLM: static_scaled_fp8_quant(Tensor! result, Tensor input, Tensor scale[, int[]? group_shape])
constexpr std::array kOutInScale{R::Output, R::Input, R::Scale};
constexpr std::array kOutInScaleGroup{R::Output, R::Input, R::Scale, R::PerTensor};
// vLLM (_C_cache_ops): reshape_and_cache_flash(Tensor key, Tensor value, Tensor! key_cache,
// Tensor! value_cache, Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, Tensor v_scale).
// The caches are [num_blocks, block_size, kv_heads, head_size].
constexpr std::array kKvCache{R::Input, R::Input,   R::Output,  R::Output,
                              R::Slots, R::Ignored, R::Ignored, R::Ignored};

using F = ServingFamily;

// FlashInfer registers no operator with PyTorch since v0.4 (its kernels are called through
// TVM-FFI, so a trace shows no call of them); its v0.2.2-v0.3.1 JIT modules' names
// (norm::rmsnorm, ...) are not read from a trace here, so they are not in the table.
constexpr std::array kOperators{
    ServingOperator{"_C::rms_norm", "vLLM", F::RmsNorm, kOutInWeightEps},
    ServingOperator{"_C::fused_add_rms_norm", "vLLM", F::FusedAddRmsNorm, kInResWeightEps},
    ServingOperator{"_C::silu_and_mul", "vLLM", F::SiluAndMul, kOutIn},
    ServingOperator{"_C::gelu_and_mul", "vLLM", F::GeluAndMul, kOutIn},
    ServingOperator{"_C::gelu_tanh_and_mul", "vLLM", F::GeluTanhAndMul, kOutIn},
    ServingOperator{"_C::rotary_embedding", "vLLM", F::RotaryEmbedding, kRotary, 4},
    ServingOperator{"_C::rotary_embedding", "vLLM", F::RotaryEmbedding, kRotaryOffset, 4},
    ServingOperator{"_C::static_scaled_fp8_quant", "vLLM", F::StaticScaledFp8Quant, kOutInScale},
    ServingOperator{"_C::static_scaled_fp8_quant", "vLLM", F::StaticScaledFp8Quant,
                    kOutInScaleGroup},
    ServingOperator{"_C_cache_ops::reshape_and_cache_flash", "vLLM", F::KvCacheWrite, kKvCache, 2},
    ServingOperator{"sgl_kernel::rmsnorm", "SGLang", F::RmsNorm, kOutInWeightEpsPdl},
    ServingOperator{"sgl_kernel::fused_add_rmsnorm", "SGLang", F::FusedAddRmsNorm,
                    kInResWeightEpsPdl},
    ServingOperator{"sgl_kernel::fused_add_rmsnorm", "SGLang", F::FusedAddRmsNorm,
                    kInResWeightEpsSgl},
    ServingOperator{"sgl_kernel::gemma_rmsnorm", "SGLang", F::GemmaRmsNorm, kOutInWeightEpsPdl},
    ServingOperator{"sgl_kernel::gemma_fused_add_rmsnorm", "SGLang", F::GemmaFusedAddRmsNorm,
                    kInResWeightEpsPdl},
    ServingOperator{"sgl_kernel::silu_and_mul", "SGLang", F::SiluAndMul, kOutIn},
    ServingOperator{"sgl_kernel::gelu_and_mul", "SGLang", F::GeluAndMul, kOutIn},
    ServingOperator{"sgl_kernel::gelu_tanh_and_mul", "SGLang", F::GeluTanhAndMul, kOutIn},
};

std::string_view withoutOverload(std::string_view op) {
    const size_t dot = op.find('.');
    return dot == std::string_view::npos ? op : op.substr(0, dot);
}

}  // namespace

std::span<const ServingOperator> servingOperators() {
    return kOperators;
}

const ServingOperator* servingOperator(std::string_view op) {
    op = withoutOverload(op);
    for (const ServingOperator& s : kOperators)
        if (s.name == op)
            return &s;
    return nullptr;
}

const ServingOperator* servingOperator(std::string_view op, size_t arguments) {
    op = withoutOverload(op);
    for (const ServingOperator& s : kOperators)
        if (s.name == op && s.roles.size() == arguments)
            return &s;
    return nullptr;
}

std::string_view servingFamilyName(ServingFamily family) {
    switch (family) {
        case F::RmsNorm:
            return "RMS norm";
        case F::GemmaRmsNorm:
            return "Gemma RMS norm (x (1 + w))";
        case F::FusedAddRmsNorm:
            return "fused residual add + RMS norm";
        case F::GemmaFusedAddRmsNorm:
            return "fused residual add + Gemma RMS norm";
        case F::SiluAndMul:
            return "SiLU-and-mul";
        case F::GeluAndMul:
            return "GELU-and-mul";
        case F::GeluTanhAndMul:
            return "GELU (tanh)-and-mul";
        case F::RotaryEmbedding:
            return "rotary embedding";
        case F::StaticScaledFp8Quant:
            return "static scaled FP8 quantisation";
        case F::KvCacheWrite:
            return "KV-cache write";
    }
    return "";
}

}  // namespace reach
