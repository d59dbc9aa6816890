#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/analysis/ruleset.h"

namespace reach {

// A name rule proposed for kernels no name rule matches (the GUI's "Suggest rules", `reach-cli
// rules suggest`). Kernels are grouped by their name stem (the function name without template
// arguments, parameters, return type, and without the tile-shape or size tokens that tell
// instances apart) and by the operator that launched them. The proposed category is what that
// operator's table row says; without an opinionated operator it is a guess (addressable: a
// kernel no library rule knows is usually a custom one), and `basis` says which.
struct RuleSuggestion {
    Rule rule;
    std::string basis;  // "operator vllm::rms_norm says addressable" or "no operator: guessed"
    bool guessed = false;
    std::string stem;
    std::vector<std::string> kernels;  // full names, largest first
    double totalUs = 0;
    double share = 0;  // of the workload's GPU time
    // Other kernels of the same workload the pattern also matches whose category it would change
    // (accepted rules go first in the set): what accepting costs.
    size_t changesOthers = 0;
    double changesOthersUs = 0;
};

// Largest first. Only kernels without a name rule (decided by their operator, or unclassified);
// memcpy and memset activities are left to the kind.
std::vector<RuleSuggestion> suggestRules(const Breakdown& breakdown);

// The set with the accepted suggestions' rules first (in the order given), named
// "<name> + suggestions"; every pattern compiles (suggestRules checks them).
RuleSet acceptSuggestions(const RuleSet& rules, const std::vector<RuleSuggestion>& accepted);

// The identifier that names a kernel's family of instances: "vllm::rms_norm_kernel" for
// "void vllm::rms_norm_kernel<c10::BFloat16, 8>(...)", "_matmul_ogs_NNT" for
// "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu". Empty when the name has none.
std::string kernelStem(const std::string& name);

// The ERE pattern that matches a stem literally (case-insensitively, as rules match).
std::string literalPattern(const std::string& text);

}  // namespace reach
