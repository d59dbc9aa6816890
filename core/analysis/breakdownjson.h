#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"

namespace reach {

// One workload in the issue-2 shape, plus extra keys:
// {"name","source","source_hash","device","gpu_time_us","busy_time_us","span_us",
//  "classified_share","shares":{library_optimized,addressable,overhead,unclassified},
//  "category_us":{the same keys: time per category},
//  "families":{...},"op_shares":{...}|null,"op_agreement":{...}|null,"kernel_count",
//  "kernels":[{"name","display_name","calls","total_us","category","family","operator",
//              "op_category","rule"}],
//  "top_by_category":{category:[{"name","display_name","family","total_us","share"}] (5 largest)},
//  "busy_share_of_span"}
// "name" is the full kernel name, "display_name" its kernelDisplayName. Times are rounded to 1 ns
// (0.001 us) and shares to 1e-6 so documents compare stably; "kernels" holds the maxKernels
// largest. The CLI wraps these in
// {"workloads":[...],"rules":{"name","hash"}} (rulesToJson).
nlohmann::json breakdownToJson(const Breakdown& b, size_t maxKernels = 20);

// The rounding of every Reach JSON document: times to 1 ns (0.001 us), shares to 1e-6.
double jsonUs(double us);
double jsonShare(double share);

// {"name","hash"} of the rule set that made a breakdown.
nlohmann::json rulesToJson(const Breakdown& b);

}  // namespace reach
