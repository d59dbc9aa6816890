#include "core/analysis/breakdown.h"

#include <algorithm>

#include "core/analysis/operatorcategory.h"

namespace reach {

namespace {
size_t idx(Category c) {
    return static_cast<size_t>(c);
}
}  // namespace

double Breakdown::share(Category c) const {
    return gpuTimeUs > 0 ? categoryUs[idx(c)] / gpuTimeUs : 0;
}

double Breakdown::opShare(Category c) const {
    return gpuTimeUs > 0 ? opCategoryUs[idx(c)] / gpuTimeUs : 0;
}

double Breakdown::familyShare(const std::string& family) const {
    auto it = familyUs.find(family);
    return it == familyUs.end() || gpuTimeUs <= 0 ? 0 : it->second / gpuTimeUs;
}

double Breakdown::opAgreement() const {
    return opLinkedUs > 0 ? opAgreeUs / opLinkedUs : 1.0;
}

std::vector<const ClassifiedKernel*> Breakdown::top(Category c, size_t n) const {
    std::vector<const ClassifiedKernel*> out;
    for (const ClassifiedKernel& k : kernels) {
        if (out.size() >= n)
            break;
        if (k.category == c)
            out.push_back(&k);
    }
    return out;
}

std::vector<OpDisagreement> Breakdown::disagreements() const {
    std::vector<OpDisagreement> out;
    for (const ClassifiedKernel& k : kernels) {
        if (isCommunicationKernel(k.stats.name))
            continue;
        for (const OperatorTime& o : k.stats.operators) {
            auto oc = operatorCategory(o.op, k.stats.kind);
            if (!oc || *oc == k.category)
                continue;
            out.push_back(OpDisagreement{k.stats.name, o.op, k.category, *oc, o.totalUs});
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const OpDisagreement& a, const OpDisagreement& b) { return a.us > b.us; });
    return out;
}

Breakdown computeBreakdown(const Workload& workload, const RuleSet& rules) {
    Breakdown b;
    b.workload = workload.name;
    b.source = workload.source;
    b.sourceHash = workload.sourceHash;
    b.device = workload.device;
    b.busyTimeUs = workload.busyTimeUs;
    b.spanUs = workload.spanUs;
    b.rulesName = rules.name();
    b.rulesHash = rules.hash();
    b.hasOpSplit = workload.hasOperatorLinks();

    b.kernels.reserve(workload.kernels.size());
    for (const KernelStats& k : workload.kernels) {
        RuleSet::Match m = rules.classify(k.name, k.kind);
        ClassifiedKernel ck;
        ck.stats = k;
        ck.category = m.category;
        ck.family = m.family;
        ck.rule = m.rule;
        if (!k.operators.empty())
            ck.opCategory = operatorCategory(k.dominantOperator(), k.kind);

        b.gpuTimeUs += k.totalUs;
        b.categoryUs[idx(m.category)] += k.totalUs;
        b.familyUs[m.family.empty() ? std::string(categoryKey(m.category)) : m.family] += k.totalUs;

        double linked = 0;
        const bool communication = isCommunicationKernel(k.name);
        for (const OperatorTime& o : k.operators) {
            Category oc = operatorCategory(o.op, k.kind).value_or(m.category);
            b.opCategoryUs[idx(oc)] += o.totalUs;
            linked += o.totalUs;
            if (communication)
                continue;
            b.opLinkedUs += o.totalUs;
            if (oc == m.category)
                b.opAgreeUs += o.totalUs;
        }
        b.opCategoryUs[idx(m.category)] += std::max(0.0, k.totalUs - linked);
        b.kernels.push_back(std::move(ck));
    }
    std::stable_sort(b.kernels.begin(), b.kernels.end(),
                     [](const ClassifiedKernel& a, const ClassifiedKernel& c) {
                         if (a.stats.totalUs != c.stats.totalUs) {
                             return a.stats.totalUs > c.stats.totalUs;
                         }
                         return a.stats.name < c.stats.name;
                     });
    b.classifiedShare =
        b.gpuTimeUs > 0 ? 1.0 - b.categoryUs[idx(Category::Unclassified)] / b.gpuTimeUs : 0;
    return b;
}

}  // namespace reach
