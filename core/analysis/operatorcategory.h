#pragma once

#include <optional>
#include <string_view>

#include "core/base/category.h"
#include "core/base/workload.h"

namespace reach {

// The operator-based split: the category of a kernel judged by the ATen operator that launched
// it, independent of any rule set. Matmul/linear/mm/bmm/addmm/gemv, convolution and attention
// (SDPA, flash, efficient, cuDNN) operators and Inductor templates (triton_tem_*) ->
// library-optimized; collectives (c10d::, nccl:, record_param_comms) -> overhead; every other
// operator (and other Triton kernels) -> addressable. nullopt for an empty name.
std::optional<Category> operatorCategory(std::string_view atenOp);

// As above, but a memcpy or memset is data movement (overhead) whatever operator issued it:
// aten::copy_ or aten::to launching a Memcpy, or aten::mm clearing a workspace with a Memset.
std::optional<Category> operatorCategory(std::string_view atenOp, ActivityKind kind);

// NCCL kernels in both naming eras (ncclKernel_*, ncclDevKernel_*) and other collectives. They
// are excluded from the name/operator agreement: their launching op is often missing or a
// c10d wrapper, and their time is waiting as much as work.
bool isCommunicationKernel(std::string_view kernelName);

}  // namespace reach
