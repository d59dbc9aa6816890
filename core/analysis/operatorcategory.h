#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/analysis/ruleset.h"
#include "core/base/category.h"
#include "core/base/workload.h"

namespace reach {

// What a launching operator says about the kernels it launches, by a visible table:
// resources/rules/operators.json, a rule set over operator names (ATen ops, Inductor's triton_*
// kernels, the custom ops of current stacks: vllm::, _C::, sglang::, trtllm::, flashinfer::,
// fbgemm::). It decides a kernel that no name rule matches, and makes the operator-based split
// beside every breakdown.
const RuleSet& operatorTable();

struct OperatorVerdict {
    std::optional<Category> category;  // nullopt: no opinion (a container, or no operator)
    std::string family;
    int rule = -1;  // the table row that matched
};

// The table's answer for one operator. A container (a compiled region, a profiler step, a graph
// replay: table rows with category "unclassified") gives no opinion, and so does an empty name.
OperatorVerdict operatorVerdict(std::string_view op);
OperatorVerdict operatorVerdict(std::string_view op, ActivityKind kind);

// The category alone. A memcpy or memset is data movement (overhead) whatever operator issued
// it: aten::copy_ or aten::to launching a Memcpy, aten::mm clearing a workspace with a Memset.
std::optional<Category> operatorCategory(std::string_view op);
std::optional<Category> operatorCategory(std::string_view op, ActivityKind kind);

// NCCL kernels in both naming eras (ncclKernel_*, ncclDevKernel_*) and other collectives. They
// are excluded from the name/operator agreement: their launching op is often missing or a
// c10d wrapper, and their time is waiting as much as work.
bool isCommunicationKernel(std::string_view kernelName);

}  // namespace reach
