#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/category.h"
#include "core/base/workload.h"

namespace reach {

// Which part of Reach decided a kernel's category: a name rule first; when none matches, its
// launching operator (core/analysis/operatorcategory.h); a memcpy or memset no rule names is
// overhead by its kind; else it stays unclassified.
enum class Decision { Rule = 0, Operator = 1, Kind = 2, Unclassified = 3 };
inline constexpr std::array<Decision, 4> kDecisions = {Decision::Rule, Decision::Operator,
                                                       Decision::Kind, Decision::Unclassified};
std::string_view decisionKey(Decision d);  // "rule", "operator", "kind", "unclassified"

struct ClassifiedKernel {
    KernelStats stats;
    Category category = Category::Unclassified;
    std::string family;
    int rule = -1;  // index of the matching name rule, -1 when none
    Decision decision = Decision::Unclassified;
    std::string decidingOperator;        // the operator that decided (Decision::Operator)
    std::optional<Category> opCategory;  // by the dominant opinionated launching operator
    // "rule 24", "operator aten::mm", "kind memcpy", "unclassified": what JSON and GUI show.
    // Rules count from 1 here, as the rule table and error messages count them.
    std::string decidedBy() const;
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
    bool shapesKept = true;  // Workload::shapesKept: false when an old project lost the shapes
    // gpuTimeUs is the sum of all kernel, memcpy and memset time (the denominator of every
    // share); busyTimeUs the union of GPU intervals; spanUs the profiled span.
    double gpuTimeUs = 0, busyTimeUs = 0, spanUs = 0;
    std::array<double, 4> categoryUs{};  // indexed by Category
    std::map<std::string, double>
        familyUs;  // kernels without a family count under their category key
    double classifiedShare = 0;
    // Operator split: each kernel's time linked to an operator with an opinion goes to that
    // operator's category, the rest to the kernel's category, so opCategoryUs also sums to
    // gpuTimeUs. Agreement: over the linked time of kernels a name rule decided (NCCL and
    // containers such as compiled regions excluded), the share where both say the same.
    bool hasOpSplit = false;
    std::array<double, 4> opCategoryUs{};
    double opLinkedUs = 0, opAgreeUs = 0;
    // Time of the activities linked to their launching operator (any operator, NCCL and
    // containers included): what the operator split, headroom and extraction can follow.
    double linkedUs = 0;
    // Of it, linked through a twin: activities whose launch the trace missed, given the
    // operator call of their repeats (Workload::twinLinkedUs).
    double twinLinkedUs = 0;
    std::array<double, 4> decisionUs{};     // time each path decided, indexed by Decision
    double graphUs = 0;                     // time of kernels launched from CUDA graphs
    std::vector<ClassifiedKernel> kernels;  // largest first
    std::string rulesName, rulesHash;

    double share(Category c) const;    // of gpuTimeUs; 0 when there is no GPU time
    double opShare(Category c) const;  // of gpuTimeUs
    double familyShare(const std::string& family) const;
    double opAgreement() const;              // opAgreeUs / opLinkedUs; 1 when nothing is linked
    double linkedShare() const;              // linkedUs of gpuTimeUs; 0 when there is none
    double twinLinkedShare() const;          // twinLinkedUs of gpuTimeUs
    double decisionShare(Decision d) const;  // of gpuTimeUs
    std::vector<const ClassifiedKernel*> top(Category c, size_t n) const;
    // Largest first; only pairs where the categories differ (NCCL excluded).
    std::vector<OpDisagreement> disagreements() const;
};

Breakdown computeBreakdown(const Workload& workload, const RuleSet& rules);

}  // namespace reach
