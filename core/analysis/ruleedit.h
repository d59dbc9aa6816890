#pragma once

#include <string>

#include "core/analysis/breakdown.h"
#include "core/analysis/ruleset.h"
#include "core/base/category.h"

namespace reach {

// The name of a rule set after a hand edit: "reach-default" becomes "reach-default (edited)",
// and stays that after further edits. Whatever shows or records the set's name (the browser, the
// breakdown caption, an exported figure's provenance) then tells it apart from the shipped set.
std::string editedRuleSetName(const std::string& name);

// The category "Add rule" proposes for a kernel, and why: the category the rule set gives the
// kernel's family (its other rules of that family), else what its launching operator says, else
// what Reach's built-in rules say of the name, else the category it is shown in (addressable
// when that is "unclassified": a kernel no rule knows is usually a custom one).
struct CategoryProposal {
    Category category = Category::Addressable;
    std::string family;  // the kernel's family, to prefill the rule's
    std::string basis;   // "family gemm is library-optimized in this rule set", ...
};
CategoryProposal proposeRuleCategory(const RuleSet& rules, const Breakdown* breakdown,
                                     const std::string& kernelName, Category shownIn);

}  // namespace reach
