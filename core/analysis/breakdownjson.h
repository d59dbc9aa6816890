#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"

namespace reach {

// One workload in the issue-2 shape, plus extra keys:
// {"name","source","source_hash","device","gpu_time_us","busy_time_us","span_us",
//  "classified_share","shares":{library_optimized,addressable,overhead,unclassified},
//  "families":{...},"op_shares":{...}|null,"op_agreement":{...}|null,"kernel_count",
//  "kernels":[{"name","calls","total_us","category","family","operator","op_category","rule"}],
//  "top_by_category":{category:[{"name","family","total_us","share"}] (5 largest)},
//  "busy_share_of_span"}
// Times are rounded to 1 ns (0.001 us) and shares to 1e-6 so documents compare stably;
// "kernels" holds the maxKernels largest. The CLI wraps these in
// {"workloads":[...],"rules":{"name","hash"}} (rulesToJson).
nlohmann::json breakdownToJson(const Breakdown& b, size_t maxKernels = 20);

// {"name","hash"} of the rule set that made a breakdown.
nlohmann::json rulesToJson(const Breakdown& b);

}  // namespace reach
