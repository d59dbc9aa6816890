#pragma once

#include <cstdint>
#include <vector>

namespace reach {

// One GPU activity as an interval (microseconds) plus a tag (the reader's kernel index).
struct GpuInterval {
    double begin = 0;
    double end = 0;
    uint32_t tag = 0;
};

// Length of the union of the intervals: the time at least one activity ran (the GPU's busy
// time; below the summed durations when streams overlap). Sorts the vector by begin.
double unionLength(std::vector<GpuInterval>& intervals);

}  // namespace reach
