#include "core/project/workloadheadroom.h"

#include <limits>
#include <map>

#include "core/analysis/kernelname.h"

namespace reach {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

WorkloadHeadroom compute(const ProjectWorkload& w) {
    if (!w.breakdown) {
        WorkloadHeadroom out;
        out.why = "published row: no kernels";
        out.shortWhy = "published";
        return out;
    }
    return workloadHeadroom(*w.breakdown);
}

}  // namespace

WorkloadHeadroom workloadHeadroom(const Breakdown& b) {
    WorkloadHeadroom out;
    const GpuSpec* gpu = gpuForDevice(b.device);
    if (!gpu) {
        out.why = b.device.empty() ? "no device in the trace: no GPU row for its roofline"
                                   : "no GPU row for device '" + b.device + "'";
        out.shortWhy = "no GPU row";
        return out;
    }
    out.headroom = computeHeadroom(b, *gpu);
    if (out.headroom->total.estimatedUs <= 0) {
        out.why =
            out.headroom->hasShapes ? "no kernel has a work estimate" : out.headroom->noShapesWhy();
        out.shortWhy = out.headroom->hasShapes ? "no formula" : "without shapes";
    }
    return out;
}

std::shared_ptr<const WorkloadHeadroom> headroomOf(const ProjectWorkload& workload) {
    struct Entry {
        std::weak_ptr<const Breakdown> breakdown;
        std::shared_ptr<const WorkloadHeadroom> headroom;
    };
    static std::map<const Breakdown*, Entry> cache;
    for (auto it = cache.begin(); it != cache.end();)
        it = it->second.breakdown.expired() ? cache.erase(it) : std::next(it);
    if (!workload.breakdown)
        return std::make_shared<const WorkloadHeadroom>(compute(workload));
    auto it = cache.find(workload.breakdown.get());
    if (it != cache.end())
        return it->second.headroom;
    auto h = std::make_shared<const WorkloadHeadroom>(compute(workload));
    cache[workload.breakdown.get()] = {workload.breakdown, h};
    return h;
}

int rooflineRow(const std::vector<ProjectWorkload>& workloads, int keep) {
    const int n = int(workloads.size());
    if (keep >= n)
        keep = -1;
    if (keep >= 0 && headroomOf(workloads[size_t(keep)])->estimated())
        return keep;
    for (int r = 0; r < n; ++r) {
        if (headroomOf(workloads[size_t(r)])->estimated())
            return r;
    }
    return keep >= 0 ? keep : (n > 0 ? 0 : -1);
}

bool isRooflinePlotted(const KernelRoofline& k) {
    return k.kind == ActivityKind::Kernel && k.estimatedUs > 0 && k.flops > 0 && k.bytes > 0;
}

FigureTable rooflineFigureTable(const std::string& workload, const Headroom& h) {
    FigureTable t;
    t.columns = {"workload",
                 "gpu",
                 "kernel",
                 "display_name",
                 "category",
                 "operator",
                 "time_us",
                 "estimated_time_us",
                 "intensity_flop_per_byte",
                 "achieved_tflop_per_s",
                 "achieved_gb_per_s",
                 "t_sol_us",
                 "fraction_of_sol",
                 "headroom_us",
                 "plotted"};
    for (const KernelRoofline& k : h.kernels) {
        const bool est = k.estimatedUs > 0;
        t.add({workload, h.gpu.name, k.name, kernelDisplayName(k.name, 80),
               std::string(categoryKey(k.category)), k.op, k.us, k.estimatedUs,
               est && k.bytes > 0 ? k.intensity() : kNaN,
               est ? k.achievedFlopsPerSecond() / 1e12 : kNaN,
               est ? k.achievedBytesPerSecond() / 1e9 : kNaN, est ? k.solUs : kNaN,
               est ? k.fractionOfSol() : kNaN, k.headroomUs(),
               std::string(isRooflinePlotted(k) ? "yes" : "no")});
    }
    return t;
}

FigureTable headroomFigureTable(const std::vector<ProjectWorkload>& workloads) {
    FigureTable t;
    t.columns = {"workload", "origin", "gpu", "coverage_of_gpu_time"};
    for (Category c : kCategories)
        t.columns.push_back("headroom_" + std::string(categoryKey(c)) + "_share_of_gpu_time");
    t.columns.insert(t.columns.end(),
                     {"headroom_share_of_gpu_time", "speed_of_light_bound_x", "why_none"});
    for (const ProjectWorkload& w : workloads) {
        const auto wh = headroomOf(w);
        std::vector<FigureTable::Cell> row{w.name, w.origin,
                                           wh->headroom ? wh->headroom->gpu.name : std::string(),
                                           wh->estimated() ? wh->headroom->coverage() : kNaN};
        for (Category c : kCategories)
            row.emplace_back(std::in_place_type<double>,
                             wh->estimated() ? wh->headroom->categoryHeadroomShare(c) : kNaN);
        row.emplace_back(std::in_place_type<double>,
                         wh->estimated() ? wh->headroom->headroomShare() : kNaN);
        row.emplace_back(std::in_place_type<double>,
                         wh->estimated() ? wh->headroom->boundSpeedup() : kNaN);
        row.push_back(wh->why);
        t.add(std::move(row));
    }
    return t;
}

}  // namespace reach
