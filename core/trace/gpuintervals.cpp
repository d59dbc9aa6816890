#include "core/trace/gpuintervals.h"

#include <algorithm>

namespace reach {

double unionLength(std::vector<GpuInterval>& intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const GpuInterval& a, const GpuInterval& b) { return a.begin < b.begin; });
    double total = 0;
    bool open = false;
    double curBegin = 0, curEnd = 0;
    for (const GpuInterval& iv : intervals) {
        if (iv.end <= iv.begin)
            continue;
        if (!open || iv.begin > curEnd) {
            if (open)
                total += curEnd - curBegin;
            curBegin = iv.begin;
            curEnd = iv.end;
            open = true;
        } else if (iv.end > curEnd) {
            curEnd = iv.end;
        }
    }
    if (open)
        total += curEnd - curBegin;
    return total;
}

}  // namespace reach
