#include "core/analysis/ruleedit.h"

namespace reach {

std::string editedRuleSetName(const std::string& name) {
    static const std::string suffix = " (edited)";
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return name;
    return name + suffix;
}

CategoryProposal proposeRuleCategory(const RuleSet& rules, const Breakdown* breakdown,
                                     const std::string& kernelName, Category shownIn) {
    const ClassifiedKernel* kernel = nullptr;
    if (breakdown) {
        for (const ClassifiedKernel& k : breakdown->kernels) {
            if (k.stats.name == kernelName) {
                kernel = &k;
                break;
            }
        }
    }
    CategoryProposal p;
    // The family: the one the kernel's rule gave it, else the one Reach's rules would.
    const RuleSet builtin = RuleSet::builtinDefault();
    const RuleSet::Match byBuiltin = builtin.classify(kernelName, ActivityKind::Kernel);
    p.family = kernel && !kernel->family.empty() ? kernel->family : byBuiltin.family;
    if (!p.family.empty()) {
        for (const Rule& r : rules.rules()) {
            if (r.family == p.family && r.category != Category::Unclassified) {
                p.category = r.category;
                p.basis = "family " + p.family + " is " + std::string(categoryLabel(r.category)) +
                          " in this rule set";
                return p;
            }
        }
    }
    if (kernel && kernel->opCategory) {
        p.category = *kernel->opCategory;
        p.basis = "its launching operator says " + std::string(categoryLabel(p.category));
        return p;
    }
    if (byBuiltin.rule >= 0 && byBuiltin.category != Category::Unclassified) {
        p.category = byBuiltin.category;
        p.basis = "Reach's built-in rules say " + std::string(categoryLabel(p.category));
        return p;
    }
    p.category = shownIn == Category::Unclassified ? Category::Addressable : shownIn;
    p.basis = shownIn == Category::Unclassified
                  ? "no rule or operator knows it: guessed addressable"
                  : "the category it is shown in";
    return p;
}

}  // namespace reach
