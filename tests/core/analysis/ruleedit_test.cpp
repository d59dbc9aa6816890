// A hand-edited rule set is named so (and once), and "Add rule" proposes the category of the
// kernel's family, else its launching operator's, else Reach's rules', else an honest guess.
#include <gtest/gtest.h>

#include "core/analysis/ruleedit.h"

namespace reach_test_ruleedit_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(RuleEdit, EditedNameIsMarkedOnce) {
    EXPECT_EQ(editedRuleSetName("reach-default"), "reach-default (edited)");
    EXPECT_EQ(editedRuleSetName("reach-default (edited)"), "reach-default (edited)");
    EXPECT_EQ(editedRuleSetName(""), " (edited)");
}

TEST(RuleEdit, ProposesTheCategoryOfTheKernelsFamily) {
    const RuleSet rules = RuleSet::builtinDefault();
    // Reach's rules call it family gemm, and this set's gemm rules are library-optimized.
    const CategoryProposal gemm =
        proposeRuleCategory(rules, nullptr, "ampere_sgemm_128x64_nn", Category::Unclassified);
    EXPECT_EQ(gemm.family, "gemm");
    EXPECT_EQ(gemm.category, Category::LibraryOptimized);
    EXPECT_NE(gemm.basis.find("family gemm"), std::string::npos) << gemm.basis;
}

TEST(RuleEdit, ThenTheLaunchingOperatorThenAGuess) {
    const RuleSet empty;  // no rule knows any family
    Breakdown b;
    ClassifiedKernel k;
    k.stats.name = "my_fused_thing_kernel";
    k.opCategory = Category::Overhead;
    b.kernels.push_back(k);
    const CategoryProposal byOp =
        proposeRuleCategory(empty, &b, "my_fused_thing_kernel", Category::Unclassified);
    EXPECT_EQ(byOp.category, Category::Overhead);
    EXPECT_NE(byOp.basis.find("operator"), std::string::npos) << byOp.basis;

    const CategoryProposal guess =
        proposeRuleCategory(empty, &b, "zz_unknown_kernel", Category::Unclassified);
    EXPECT_EQ(guess.category, Category::Addressable);
    EXPECT_NE(guess.basis.find("guessed"), std::string::npos) << guess.basis;
    const CategoryProposal shown =
        proposeRuleCategory(empty, nullptr, "zz_unknown_kernel", Category::Overhead);
    EXPECT_EQ(shown.category, Category::Overhead);
}

}  // namespace reach_test_ruleedit_test
