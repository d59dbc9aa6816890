#include "core/analysis/operatorcategory.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace reach {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

bool containsAny(const std::string& s, std::initializer_list<std::string_view> parts) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return contains(s, p); });
}

const std::initializer_list<std::string_view> kCommunicationWords = {
    "nccl",           "allreduce", "all_reduce", "allgather", "all_gather", "reducescatter",
    "reduce_scatter", "alltoall",  "all_to_all", "sendrecv",  "nvshmem",    "cross_device_reduce"};

// Operator base names (namespace and leading underscores removed) that are matrix products.
constexpr std::array<std::string_view, 24> kMatmulOps = {"mm",
                                                         "bmm",
                                                         "addmm",
                                                         "addmv",
                                                         "addbmm",
                                                         "baddbmm",
                                                         "matmul",
                                                         "linear",
                                                         "mv",
                                                         "addmm_activation",
                                                         "scaled_mm",
                                                         "int_mm",
                                                         "grouped_mm",
                                                         "scaled_grouped_mm",
                                                         "tensordot",
                                                         "chain_matmul",
                                                         "weight_int4pack_mm",
                                                         "weight_int8pack_mm",
                                                         "linear_backward",
                                                         "mm_backward",
                                                         "matmul_backward",
                                                         "bmm_backward",
                                                         "einsum",
                                                         "fused_linear"};

bool isConvolution(const std::string& base) {
    if (contains(base, "convolution") || contains(base, "conv_depthwise") ||
        contains(base, "conv_transpose") || contains(base, "conv_tbc")) {
        return true;
    }
    // conv1d/conv2d/conv3d and backend-prefixed forms (cudnn_conv..., slow_conv2d...), but not
    // "convert..." which also starts with "conv".
    for (std::string_view prefix : {"", "cudnn_", "mkldnn_", "miopen_", "slow_", "thnn_"}) {
        if (!base.starts_with(prefix))
            continue;
        std::string_view rest = std::string_view(base).substr(prefix.size());
        if (!rest.starts_with("conv"))
            continue;
        rest.remove_prefix(4);
        if (rest.empty() || rest.front() == '_' ||
            (rest.size() >= 2 && std::isdigit(static_cast<unsigned char>(rest[0])) &&
             rest[1] == 'd')) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool isCommunicationKernel(std::string_view kernelName) {
    return containsAny(lower(kernelName), kCommunicationWords);
}

std::optional<Category> operatorCategory(std::string_view atenOp) {
    if (atenOp.empty())
        return std::nullopt;
    const std::string op = lower(atenOp);
    if (containsAny(op, kCommunicationWords) || contains(op, "c10d::") ||
        contains(op, "record_param_comms")) {
        return Category::Overhead;
    }
    // Inductor names the launching "operator" after the Triton kernel itself.
    if (op.starts_with("triton_tem_"))
        return Category::LibraryOptimized;
    if (op.starts_with("triton_"))
        return Category::Addressable;

    std::string base = op;
    if (auto pos = base.rfind("::"); pos != std::string::npos)
        base = base.substr(pos + 2);
    base.erase(0, base.find_first_not_of('_'));

    if (containsAny(base, {"attention", "sdpa", "flash_attn"}) || base.starts_with("flash_")) {
        return Category::LibraryOptimized;
    }
    if (isConvolution(base))
        return Category::LibraryOptimized;
    if (std::find(kMatmulOps.begin(), kMatmulOps.end(), base) != kMatmulOps.end()) {
        return Category::LibraryOptimized;
    }
    // FBGEMM GenAI matmul ops (fbgemm::f8f8bf16_rowwise, ...) and any *gemm* op; the namespace
    // "fbgemm" was stripped above, so embedding ops like fbgemm::split_embedding_* stay out.
    if (containsAny(base, {"gemm", "f8f8bf16", "i8i8bf16", "f8i4bf16", "bf16i4bf16"})) {
        return Category::LibraryOptimized;
    }
    return Category::Addressable;
}

std::optional<Category> operatorCategory(std::string_view atenOp, ActivityKind kind) {
    if (kind == ActivityKind::Memcpy || kind == ActivityKind::Memset)
        return Category::Overhead;
    return operatorCategory(atenOp);
}

}  // namespace reach
