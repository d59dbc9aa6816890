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

double Breakdown::linkedShare() const {
    return gpuTimeUs > 0 ? std::min(1.0, linkedUs / gpuTimeUs) : 0;
}

double Breakdown::twinLinkedShare() const {
    return gpuTimeUs > 0 ? std::min(1.0, twinLinkedUs / gpuTimeUs) : 0;
}

double Breakdown::decisionShare(Decision d) const {
    return gpuTimeUs > 0 ? decisionUs[size_t(d)] / gpuTimeUs : 0;
}

std::string_view decisionKey(Decision d) {
    switch (d) {
        case Decision::Rule:
            return "rule";
        case Decision::Operator:
            return "operator";
        case Decision::Kind:
            return "kind";
        case Decision::Unclassified:
            break;
    }
    return "unclassified";
}

std::string ClassifiedKernel::decidedBy() const {
    switch (decision) {
        case Decision::Rule:
            return "rule " + std::to_string(rule + 1);  // counted from 1, as the rule table
        case Decision::Operator:
            return "operator " + decidingOperator;
        case Decision::Kind:
            return std::string("kind ") +
                   (stats.kind == ActivityKind::Memcpy ? "memcpy" : "memset");
        case Decision::Unclassified:
            break;
    }
    return "unclassified";
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
        if (k.decision != Decision::Rule || isCommunicationKernel(k.stats.name))
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
    b.shapesKept = workload.shapesKept;
    b.device = workload.device;
    b.busyTimeUs = workload.busyTimeUs;
    b.spanUs = workload.spanUs;
    b.twinLinkedUs = workload.twinLinkedUs;
    b.rulesName = rules.name();
    b.rulesHash = rules.hash();
    b.hasOpSplit = workload.hasOperatorLinks();

    b.kernels.reserve(workload.kernels.size());
    for (const KernelStats& k : workload.kernels) {
        const RuleSet::Match m = rules.classify(k.name, k.kind);
        ClassifiedKernel ck;
        ck.stats = k;
        ck.rule = m.rule;
        // The launching operator with an opinion that took the most time (containers such as a
        // compiled region or a graph replay say nothing about the kernels inside them).
        OperatorVerdict dominant;
        for (const OperatorTime& o : k.operators) {  // largest time first
            OperatorVerdict v = operatorVerdict(o.op, k.kind);
            if (v.category) {
                dominant = std::move(v);
                ck.decidingOperator = o.op;
                break;
            }
        }
        ck.opCategory = dominant.category;
        if (m.rule >= 0) {
            ck.decision = Decision::Rule;
            ck.category = m.category;
            ck.family = m.family;
        } else if (dominant.category) {
            ck.decision = Decision::Operator;
            ck.category = *dominant.category;
            ck.family = dominant.family;
        } else if (k.kind != ActivityKind::Kernel) {
            ck.decision = Decision::Kind;
            ck.category = m.category;  // overhead: data movement
            ck.family = m.family;
        } else {
            ck.decision = Decision::Unclassified;
            ck.category = Category::Unclassified;
        }
        if (ck.decision != Decision::Operator)
            ck.decidingOperator.clear();

        b.gpuTimeUs += k.totalUs;
        b.graphUs += k.graphUs;
        b.categoryUs[idx(ck.category)] += k.totalUs;
        b.decisionUs[size_t(ck.decision)] += k.totalUs;
        b.familyUs[ck.family.empty() ? std::string(categoryKey(ck.category)) : ck.family] +=
            k.totalUs;

        b.linkedUs += k.linkedUs();
        double linked = 0;
        const bool compare = ck.decision == Decision::Rule && !isCommunicationKernel(k.name);
        for (const OperatorTime& o : k.operators) {
            const std::optional<Category> oc = operatorCategory(o.op, k.kind);
            if (!oc)
                continue;  // a container: its time stays with the kernel's own category
            b.opCategoryUs[idx(*oc)] += o.totalUs;
            linked += o.totalUs;
            if (!compare)
                continue;
            b.opLinkedUs += o.totalUs;
            if (*oc == ck.category)
                b.opAgreeUs += o.totalUs;
        }
        b.opCategoryUs[idx(ck.category)] += std::max(0.0, k.totalUs - linked);
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
