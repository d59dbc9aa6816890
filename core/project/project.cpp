#include "core/project/project.h"

#include <algorithm>

namespace reach {

double ProjectWorkload::addressableShare() const {
    if (published || !breakdown)
        return publishedAddressable;
    return breakdown->share(Category::Addressable);
}

std::optional<WallClock> ProjectWorkload::wallClock() const {
    if (published || !breakdown || !(breakdown->spanUs > 0))
        return std::nullopt;
    return WallClock{breakdown->gpuTimeUs, breakdown->busyTimeUs, breakdown->spanUs};
}

Projection projectWorkload(const ProjectWorkload& workload, double winRate,
                           double medianSpeedup) {
    return projectSummary(workload.name, workload.addressableShare(), winRate, medianSpeedup,
                          workload.wallClock());
}

std::string ProjectWorkload::shortOrigin() const {
    if (!published && origin.rfind("NVIDIA ", 0) == 0)
        return origin.substr(7);
    return origin;
}

ProjectWorkload measuredWorkload(std::shared_ptr<const Workload> workload,
                                 std::shared_ptr<const Breakdown> breakdown) {
    ProjectWorkload entry;
    entry.name = workload->name;
    entry.origin = workload->device.empty() ? "profile" : workload->device;
    entry.workload = std::move(workload);
    entry.breakdown = std::move(breakdown);
    return entry;
}

void Project::addMeasured(ProjectWorkload entry) {
    sources.push_back(entry.workload->source);
    auto same = std::find_if(workloads.begin(), workloads.end(), [&](const ProjectWorkload& w) {
        return w.workload && w.workload->sourceHash == entry.workload->sourceHash;
    });
    if (same != workloads.end())
        *same = std::move(entry);
    else
        workloads.push_back(std::move(entry));
}

void Project::reclassify(const RuleSet& newRules) {
    rules = newRules;
    for (ProjectWorkload& w : workloads) {
        if (w.workload)
            w.breakdown = std::make_shared<const Breakdown>(computeBreakdown(*w.workload, rules));
    }
}

std::vector<std::shared_ptr<const Workload>> Project::measured() const {
    std::vector<std::shared_ptr<const Workload>> out;
    for (const ProjectWorkload& w : workloads) {
        if (w.workload)
            out.push_back(w.workload);
    }
    return out;
}

}  // namespace reach
