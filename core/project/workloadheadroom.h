#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/headroom/headroom.h"
#include "core/project/figuredata.h"
#include "core/project/project.h"

namespace reach {

// One workload against its GPU's roofline, as every headroom view shows it: core's
// computeHeadroom (core/headroom) on the row's breakdown, the GPU row picked by the trace's
// deviceProperties name (gpuForDevice), as `reach-cli headroom` does. The views only paint it.
struct WorkloadHeadroom {
    std::optional<Headroom> headroom;  // none: a published row, or no GPU row for the device
    std::string why;                   // without headroom, or without any estimate: why not
    std::string shortWhy;              // the same in a word or two, for a figure's caption

    // Headroom with at least one estimated kernel.
    bool estimated() const { return headroom && headroom->total.estimatedUs > 0; }
};

// The headroom of one breakdown, uncached: what headroomOf computes for a measured row (any
// thread; the exact projection's speed of light takes it too).
WorkloadHeadroom workloadHeadroom(const Breakdown& breakdown);

// The headroom of a row, computed once per breakdown (a re-classification makes a new one; the
// entry of a breakdown no longer alive is dropped). GUI thread only.
std::shared_ptr<const WorkloadHeadroom> headroomOf(const ProjectWorkload& workload);

// The row a roofline shows when none is asked for: `keep` (a row already shown) when it has an
// estimate, else the first row with one, else `keep`, else the first row; -1 without rows. The
// roofline view and `reach-cli figure roofline` alike.
int rooflineRow(const std::vector<ProjectWorkload>& workloads, int keep = -1);

// A kernel the roofline scatter can place: a kernel (not a memset or a memcpy) with an estimate
// of both FLOPs and bytes (a copy or a gather has no FLOPs and so no place on a FLOP/s axis). A
// kernel's work is its operator call's, shared by time among the call's kernels; a memset the
// call launched would get a share of a GEMM's FLOPs and be drawn at hundreds of TFLOP/s, so
// memsets and memcpys are never drawn as measured points (issue 40; their time still counts).
bool isRooflinePlotted(const KernelRoofline& kernel);

// What the roofline figure plots (its CSV): one row per kernel of `h`, plotted or not, with
// core's numbers (intensity, achieved FLOP/s and bytes/s, t_sol, fraction of speed of light).
FigureTable rooflineFigureTable(const std::string& workload, const Headroom& h);
// What the headroom figure plots: per workload, the headroom share of GPU time by category, the
// total and the coverage (NaN where a row has no estimate).
FigureTable headroomFigureTable(const std::vector<ProjectWorkload>& workloads);

}  // namespace reach
