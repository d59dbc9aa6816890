#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/category.h"
#include "core/base/workload.h"

namespace reach {

struct ClassifiedKernel {
    KernelStats stats;
    Category category = Category::Unclassified;  // by the name rules
    std::string family;
    int rule = -1;                       // index of the matching rule, -1 when none
    std::optional<Category> opCategory;  // by the dominant launching operator, when linked
};

// Where the name rules and the launching operator disagree, for one (kernel, operator) pair.
struct OpDisagreement {
    std::string kernel;
    std::string op;
    Category nameCategory = Category::Unclassified;
    Category opCategory = Category::Unclassified;
    double us = 0;
};

// One workload's GPU time split by category and family (DOMAIN.md), made by one rule set.
struct Breakdown {
    std::string workload, source, sourceHash, device;
    // gpuTimeUs is the sum of all kernel, memcpy and memset time (the denominator of every
    // share); busyTimeUs the union of GPU intervals; spanUs the profiled span.
    double gpuTimeUs = 0, busyTimeUs = 0, spanUs = 0;
    std::array<double, 4> categoryUs{};  // indexed by Category
    std::map<std::string, double>
        familyUs;  // kernels without a family count under their category key
    double classifiedShare = 0;
    // Operator split: each kernel's linked time goes to its operator's category, its unlinked
    // time to its name category, so opCategoryUs also sums to gpuTimeUs. Agreement: time where
    // the name category equals the operator category, over linked time, NCCL excluded.
    bool hasOpSplit = false;
    std::array<double, 4> opCategoryUs{};
    double opLinkedUs = 0, opAgreeUs = 0;
    std::vector<ClassifiedKernel> kernels;  // largest first
    std::string rulesName, rulesHash;

    double share(Category c) const;    // of gpuTimeUs; 0 when there is no GPU time
    double opShare(Category c) const;  // of gpuTimeUs
    double familyShare(const std::string& family) const;
    double opAgreement() const;  // opAgreeUs / opLinkedUs; 1 when nothing is linked
    std::vector<const ClassifiedKernel*> top(Category c, size_t n) const;
    // Largest first; only pairs where the categories differ (NCCL excluded).
    std::vector<OpDisagreement> disagreements() const;
};

Breakdown computeBreakdown(const Workload& workload, const RuleSet& rules);

}  // namespace reach
