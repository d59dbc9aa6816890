#include "core/project/project.h"

#include "core/project/workloadlabels.h"

#include <algorithm>

#include <nlohmann/json.hpp>

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

Projection projectWorkload(const ProjectWorkload& workload, double winRate, double medianSpeedup) {
    return projectSummary(workload.name, workload.addressableShare(), winRate, medianSpeedup,
                          workload.wallClock());
}

std::string ProjectWorkload::shortOrigin() const {
    if (!published && origin.rfind("NVIDIA ", 0) == 0)
        return origin.substr(7);
    return origin;
}

std::vector<RowLabel> rowLabels(const std::vector<ProjectWorkload>& workloads) {
    std::vector<std::string> names;
    for (const ProjectWorkload& w : workloads)
        names.push_back(w.name);
    const std::vector<std::string> shortened = shortNames(names);
    std::vector<RowLabel> out;
    for (size_t i = 0; i < workloads.size(); ++i) {
        const ProjectWorkload& w = workloads[i];
        std::string gpu = w.published ? w.origin : gpuModel(w.origin);
        if (gpu.empty() && !w.published)
            gpu = gpuModelInName(w.name);  // a trace that names no device: its name may
        out.push_back({shortened[i], gpu, w.name + " (" + w.origin + ")"});
    }
    auto count = [&out](const RowLabel& l) {
        return std::count_if(out.begin(), out.end(), [&l](const RowLabel& o) {
            return o.name == l.name && o.tag == l.tag;
        });
    };
    std::vector<bool> twin(out.size());
    for (size_t i = 0; i < out.size(); ++i)
        twin[i] = count(out[i]) > 1;
    for (size_t i = 0; i < out.size(); ++i) {
        if (twin[i] && workloads[i].workload && !workloads[i].workload->source.empty()) {
            const std::string& src = workloads[i].workload->source;
            out[i].tag += (out[i].tag.empty() ? "" : ", ") + src.substr(src.find_last_of('/') + 1);
        }
    }
    const std::vector<RowLabel> plain = out;
    for (size_t i = 0; i < out.size(); ++i) {
        int seen = 0;
        for (size_t j = 0; j < i; ++j)
            seen += plain[j].name == plain[i].name && plain[j].tag == plain[i].tag;
        if (seen > 0)
            out[i].tag += (out[i].tag.empty() ? "#" : " #") + std::to_string(seen + 1);
    }
    return out;
}

nlohmann::json rowLabelsJson(const std::vector<ProjectWorkload>& workloads) {
    nlohmann::json rows = nlohmann::json::array();
    const std::vector<RowLabel> labels = rowLabels(workloads);
    for (size_t i = 0; i < workloads.size(); ++i)
        rows.push_back({{"label", labels[i].text()},
                        {"name", workloads[i].name},
                        {"origin", workloads[i].origin}});
    return rows;
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
