#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/analysis/profilediff.h"

namespace reach {

// A diff as one JSON document (docs/cli.md, `reach-cli diff --json`); differences are B - A:
// {"a":{side},"b":{side},"rules":{"name","hash"},
//  "gpu_time_us"|"busy_time_us"|"span_us"|"busy_share_of_span":{"a","b","delta"},
//  "categories":[{"category",row}],"families":[{"family",row}],
//  "kernels"|"only_in_a"|"only_in_b":[{"name","display_name","operator","category","family",
//      row,"a_calls","b_calls","names_a":[...],"names_b":[...]}],
//  "kernel_count":{"matched","only_in_a","only_in_b"},"kernel_delta_sum_us"}
// row = "a_us","b_us","delta_us","a_share","b_share","delta_share". A side carries the keys
// breakdownToJson gives the same totals ("name","source","source_hash","device","gpu_time_us",
// "busy_time_us","span_us","busy_share_of_span","classified_share","shares","category_us"),
// rounded the same way, so they compare equal. maxRows limits each kernel list.
nlohmann::json profileDiffToJson(const ProfileDiff& d,
                                 size_t maxRows = std::numeric_limits<size_t>::max());

// {"candidates":[{"pattern","speedup","kernels":[...],"a_us","b_us","projected_saving_us",
//   "measured_saving_us","projected_saving_share","measured_saving_share"}],
//  "total":{"a_us","b_us","projected_saving_us","measured_saving_us","projected_saving_share",
//   "measured_saving_share","projected_speedup","gpu_time_saving_us","gpu_time_saving_share",
//   "measured_speedup","projected_saving_wall_share","measured_span_saving_share",
//   "busy_share_a","wall_clock_warning"},"assumptions"}; shares are of A's GPU time, the two wall
//   shares of A's profiled span (null without spans), the warning null unless A's GPU is busy
//   less than half its span.
nlohmann::json projectionCheckToJson(const ProjectionCheck& p);

}  // namespace reach
