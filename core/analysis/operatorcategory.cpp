#include "core/analysis/operatorcategory.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/analysis/operatorrules.h"

namespace reach {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

const std::initializer_list<std::string_view> kCommunicationWords = {
    "nccl",          "allreduce",           "all_reduce", "allgather",  "all_gather",
    "reducescatter", "reduce_scatter",      "alltoall",   "all_to_all", "sendrecv",
    "nvshmem",       "cross_device_reduce", "multimem",   "lamport"};

}  // namespace

const RuleSet& operatorTable() {
    static const RuleSet table =
        RuleSet::fromJsonText(std::string(kOperatorRulesJson), "resources/rules/operators.json");
    return table;
}

bool isCommunicationKernel(std::string_view kernelName) {
    const std::string name = lower(kernelName);
    return std::any_of(kCommunicationWords.begin(), kCommunicationWords.end(),
                       [&](std::string_view w) { return name.find(w) != std::string::npos; });
}

OperatorVerdict operatorVerdict(std::string_view op) {
    OperatorVerdict v;
    if (op.empty())
        return v;
    const RuleSet::Match m = operatorTable().classify(op, ActivityKind::Kernel);
    v.rule = m.rule;
    v.family = m.family;
    if (m.rule >= 0 && m.category != Category::Unclassified)
        v.category = m.category;
    return v;
}

OperatorVerdict operatorVerdict(std::string_view op, ActivityKind kind) {
    if (kind == ActivityKind::Memcpy || kind == ActivityKind::Memset) {
        OperatorVerdict v;
        v.category = Category::Overhead;
        v.family = kind == ActivityKind::Memcpy ? "memcpy" : "memset";
        return v;
    }
    return operatorVerdict(op);
}

std::optional<Category> operatorCategory(std::string_view op) {
    return operatorVerdict(op).category;
}

std::optional<Category> operatorCategory(std::string_view op, ActivityKind kind) {
    return operatorVerdict(op, kind).category;
}

}  // namespace reach
