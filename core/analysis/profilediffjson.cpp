#include "core/analysis/profilediffjson.h"

#include "core/analysis/breakdownjson.h"

namespace reach {

namespace {

using nlohmann::json;

json nullableString(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

json sideToJson(const DiffSide& s) {
    json j = json::object();
    j["name"] = s.workload;
    j["source"] = s.source;
    j["source_hash"] = nullableString(s.sourceHash);
    j["device"] = nullableString(s.device);
    j["gpu_time_us"] = jsonUs(s.gpuTimeUs);
    j["busy_time_us"] = jsonUs(s.busyTimeUs);
    j["span_us"] = jsonUs(s.spanUs);
    j["busy_share_of_span"] =
        s.spanUs > 0 ? json(jsonShare(s.busyTimeUs / s.spanUs)) : json(nullptr);
    j["classified_share"] = jsonShare(s.classifiedShare);
    json shares = json::object(), times = json::object();
    for (Category c : kCategories) {
        shares[std::string(categoryKey(c))] = jsonShare(s.share(c));
        times[std::string(categoryKey(c))] = jsonUs(s.categoryUs[static_cast<size_t>(c)]);
    }
    j["shares"] = shares;
    j["category_us"] = times;
    return j;
}

json change(double a, double b, bool share) {
    return share ? json{{"a", jsonShare(a)}, {"b", jsonShare(b)}, {"delta", jsonShare(b - a)}}
                 : json{{"a", jsonUs(a)}, {"b", jsonUs(b)}, {"delta", jsonUs(b - a)}};
}

void addTimes(json& j, const DiffRow& r) {
    j["a_us"] = jsonUs(r.aUs);
    j["b_us"] = jsonUs(r.bUs);
    j["delta_us"] = jsonUs(r.deltaUs());
    j["a_share"] = jsonShare(r.aShare);
    j["b_share"] = jsonShare(r.bShare);
    j["delta_share"] = jsonShare(r.deltaShare());
}

json kernelRows(const std::vector<DiffRow>& rows, size_t maxRows) {
    json list = json::array();
    for (const DiffRow& r : rows) {
        if (list.size() >= maxRows)
            break;
        json j = json::object();
        // "name" is the largest full name (A's when A has the key).
        j["name"] = r.aNames.empty() ? r.bNames.front() : r.aNames.front();
        j["display_name"] = r.key;
        j["operator"] = nullableString(r.op);
        j["category"] = std::string(categoryKey(r.category));
        j["family"] = nullableString(r.family);
        addTimes(j, r);
        j["a_calls"] = r.aCalls;
        j["b_calls"] = r.bCalls;
        j["names_a"] = r.aNames;
        j["names_b"] = r.bNames;
        list.push_back(std::move(j));
    }
    return list;
}

}  // namespace

json profileDiffToJson(const ProfileDiff& d, size_t maxRows) {
    json j = json::object();
    j["a"] = sideToJson(d.a);
    j["b"] = sideToJson(d.b);
    j["rules"] = {{"name", d.a.rulesName}, {"hash", d.a.rulesHash}};
    j["gpu_time_us"] = change(d.a.gpuTimeUs, d.b.gpuTimeUs, false);
    j["busy_time_us"] = change(d.a.busyTimeUs, d.b.busyTimeUs, false);
    j["span_us"] = change(d.a.spanUs, d.b.spanUs, false);
    j["busy_share_of_span"] = change(d.a.busyShare(), d.b.busyShare(), true);
    json categories = json::array();
    for (const DiffRow& r : d.categories) {
        json row = {{"category", r.key}};
        addTimes(row, r);
        categories.push_back(std::move(row));
    }
    j["categories"] = categories;
    json families = json::array();
    for (const DiffRow& r : d.families) {
        json row = {{"family", r.key}};
        addTimes(row, r);
        families.push_back(std::move(row));
    }
    j["families"] = families;
    j["kernel_count"] = {{"matched", d.kernels.size()},
                         {"only_in_a", d.onlyA.size()},
                         {"only_in_b", d.onlyB.size()}};
    j["kernels"] = kernelRows(d.kernels, maxRows);
    j["only_in_a"] = kernelRows(d.onlyA, maxRows);
    j["only_in_b"] = kernelRows(d.onlyB, maxRows);
    j["kernel_delta_sum_us"] = jsonUs(d.kernelDeltaSumUs());
    return j;
}

json projectionCheckToJson(const ProjectionCheck& p) {
    const auto ofA = [&](double us) { return jsonShare(p.aGpuTimeUs > 0 ? us / p.aGpuTimeUs : 0); };
    json list = json::array();
    for (const CandidateCheck& c : p.candidates) {
        list.push_back({{"pattern", c.candidate.pattern},
                        {"speedup", c.candidate.speedup},
                        {"kernels", c.keys},
                        {"a_us", jsonUs(c.aUs)},
                        {"b_us", jsonUs(c.bUs)},
                        {"projected_saving_us", jsonUs(c.projectedSavingUs())},
                        {"measured_saving_us", jsonUs(c.measuredSavingUs())},
                        {"projected_saving_share", ofA(c.projectedSavingUs())},
                        {"measured_saving_share", ofA(c.measuredSavingUs())}});
    }
    const double gpuSaving = p.aGpuTimeUs - p.bGpuTimeUs;
    json total = {{"a_us", jsonUs(p.aUs())},
                  {"b_us", jsonUs(p.bUs())},
                  {"projected_saving_us", jsonUs(p.projectedSavingUs())},
                  {"measured_saving_us", jsonUs(p.measuredSavingUs())},
                  {"projected_saving_share", ofA(p.projectedSavingUs())},
                  {"measured_saving_share", ofA(p.measuredSavingUs())},
                  {"projected_speedup", jsonShare(p.projectedSpeedup())},
                  {"gpu_time_saving_us", jsonUs(gpuSaving)},
                  {"gpu_time_saving_share", ofA(gpuSaving)},
                  {"measured_speedup", jsonShare(p.measuredSpeedup())}};
    const bool spans = p.aClock.known() && p.bClock.spanUs > 0;
    total["projected_saving_wall_share"] =
        p.aClock.known() ? json(jsonShare(p.projectedWallShare())) : json(nullptr);
    total["measured_span_saving_share"] =
        spans ? json(jsonShare(p.measuredWallShare())) : json(nullptr);
    total["busy_share_a"] =
        p.aClock.known() ? json(jsonShare(p.aClock.busyShare())) : json(nullptr);
    const std::string warning = wallClockWarning(p.aClock);
    total["wall_clock_warning"] = warning.empty() ? json(nullptr) : json(warning);
    return {{"candidates", list}, {"total", total}, {"assumptions", kCandidateAssumptions}};
}

}  // namespace reach
