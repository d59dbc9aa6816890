#include "core/analysis/breakdownjson.h"

#include <cmath>

#include "core/analysis/kernelname.h"

namespace reach {

namespace {

using nlohmann::json;

constexpr size_t kTopPerCategory = 5;

double us(double v) {
    return jsonUs(v);
}
double frac(double v) {
    return jsonShare(v);
}

json nullableString(const std::string& s) {
    return s.empty() ? json(nullptr) : json(s);
}

}  // namespace

double jsonUs(double v) {
    return std::round(v * 1e3) / 1e3;
}

double jsonShare(double v) {
    return std::round(v * 1e6) / 1e6;
}

json breakdownToJson(const Breakdown& b, size_t maxKernels) {
    json j = json::object();
    j["name"] = b.workload;
    j["source"] = b.source;
    j["source_hash"] = nullableString(b.sourceHash);
    j["device"] = nullableString(b.device);
    j["gpu_time_us"] = us(b.gpuTimeUs);
    j["busy_time_us"] = us(b.busyTimeUs);
    j["span_us"] = us(b.spanUs);
    // GPU busy vs the profiled span: how much of the wall clock the GPU worked at all.
    j["busy_share_of_span"] = b.spanUs > 0 ? json(frac(b.busyTimeUs / b.spanUs)) : json(nullptr);
    j["classified_share"] = frac(b.classifiedShare);
    // Which path decided how much time: name rules, launching operators, activity kind.
    json decided = json::object();
    for (Decision d : kDecisions)
        decided[std::string(decisionKey(d))] = frac(b.decisionShare(d));
    j["decided_by"] = decided;
    j["graph_us"] = us(b.graphUs);
    j["graph_share"] = frac(b.gpuTimeUs > 0 ? b.graphUs / b.gpuTimeUs : 0);
    // Time linked to its launching operator (External id, else correlation -> launch call ->
    // enclosing operator): the part the operator split and headroom can follow.
    j["linked_us"] = us(b.linkedUs);
    j["linked_share"] = frac(b.linkedShare());
    // Of it, linked through a twin (a launch the trace missed; core/trace/kinetomerge.h).
    j["twin_linked_share"] = frac(b.twinLinkedShare());

    json shares = json::object();
    for (Category c : kCategories)
        shares[std::string(categoryKey(c))] = frac(b.share(c));
    j["shares"] = shares;
    json categoryUs = json::object();
    for (Category c : kCategories)
        categoryUs[std::string(categoryKey(c))] = us(b.categoryUs[static_cast<size_t>(c)]);
    j["category_us"] = categoryUs;

    json families = json::object();
    for (const auto& [family, t] : b.familyUs)
        families[family] = frac(b.familyShare(family));
    j["families"] = families;

    if (b.hasOpSplit) {
        json op = json::object();
        for (Category c : kCategories)
            op[std::string(categoryKey(c))] = frac(b.opShare(c));
        j["op_shares"] = op;
        json agreement = json::object();
        agreement["linked_us"] = us(b.opLinkedUs);
        agreement["agree_us"] = us(b.opAgreeUs);
        agreement["agreement"] = frac(b.opAgreement());
        json disagreements = json::array();
        for (const OpDisagreement& d : b.disagreements()) {
            if (disagreements.size() >= 10)
                break;
            disagreements.push_back({{"kernel", d.kernel},
                                     {"operator", d.op},
                                     {"name_category", std::string(categoryKey(d.nameCategory))},
                                     {"op_category", std::string(categoryKey(d.opCategory))},
                                     {"us", us(d.us)}});
        }
        agreement["disagreements"] = disagreements;
        j["op_agreement"] = agreement;
    } else {
        j["op_shares"] = nullptr;
        j["op_agreement"] = nullptr;
    }

    j["kernel_count"] = b.kernels.size();
    json kernels = json::array();
    for (const ClassifiedKernel& k : b.kernels) {
        if (kernels.size() >= maxKernels)
            break;
        json kj = json::object();
        kj["name"] = k.stats.name;
        kj["display_name"] = kernelDisplayName(k.stats.name);
        kj["calls"] = k.stats.calls;
        kj["total_us"] = us(k.stats.totalUs);
        kj["category"] = std::string(categoryKey(k.category));
        kj["family"] = nullableString(k.family);
        kj["operator"] = nullableString(k.stats.dominantOperator());
        kj["op_category"] =
            k.opCategory ? json(std::string(categoryKey(*k.opCategory))) : json(nullptr);
        kj["rule"] = k.rule;
        kj["decided_by"] = k.decidedBy();
        kj["graph_calls"] = k.stats.graphCalls;
        kernels.push_back(std::move(kj));
    }
    j["kernels"] = kernels;

    json top = json::object();
    for (Category c : kCategories) {
        json list = json::array();
        for (const ClassifiedKernel* k : b.top(c, kTopPerCategory)) {
            list.push_back({{"name", k->stats.name},
                            {"display_name", kernelDisplayName(k->stats.name)},
                            {"family", nullableString(k->family)},
                            {"total_us", us(k->stats.totalUs)},
                            {"share", frac(b.gpuTimeUs > 0 ? k->stats.totalUs / b.gpuTimeUs : 0)}});
        }
        top[std::string(categoryKey(c))] = list;
    }
    j["top_by_category"] = top;
    return j;
}

json rulesToJson(const Breakdown& b) {
    return json{{"name", b.rulesName}, {"hash", b.rulesHash}};
}

}  // namespace reach
