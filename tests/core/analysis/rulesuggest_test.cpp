// Suggested rules on real traces: stems of real kernel names, proposals from the launching
// operator and from Reach's own rules, and what accepting them does.
#include <gtest/gtest.h>

#include "core/analysis/breakdown.h"
#include "core/analysis/rulesuggest.h"
#include "core/trace/profilereader.h"

namespace reach_test_rulesuggest_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

std::string dataset(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/" + rel;
}

// The built-in set cut down to its memcpy and memset rules: every kernel lacks a name rule.
RuleSet dataMovementOnly() {
    RuleSet r = RuleSet::builtinDefault();
    while (r.size() > 2)
        r.removeRule(2);
    r.setName("data-movement-only");
    return r;
}

}  // namespace

TEST(RuleSuggest, StemsOfRealKernelNames) {
    const std::pair<const char*, const char*> cases[] = {
        {"void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, "
         "long)",
         "vllm::rms_norm_kernel"},
        {"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
         "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long)",
         "vllm::fused_add_rms_norm_kernel"},
        {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", "_matmul_ogs_NNT"},
        {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1", "bmm"},
        {"nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_TNN", "nvjet"},
        {"kernel_unified_attention_2d", "kernel_unified_attention"},
        {"void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, "
         "unsigned int, 2, 2, -2>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)",
         "at::native::indexSelectSmallIndex"},
        {"void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<64> >, "
         "cutlass::bfloat16_t> >(flash::FlashAttnBwdPreprocess<>::Params)",
         "flash::FlashAttnBwdPreprocess"},
        {"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
         "fmhaSm100aKernel"},
        {"triton_poi_fused_add_5", "triton_poi_fused_add"},
    };
    for (const auto& [name, stem] : cases)
        EXPECT_EQ(kernelStem(name), stem) << name;
    EXPECT_EQ(literalPattern("a.b(c)*"), "a\\.b\\(c\\)\\*");
}

TEST(RuleSuggest, TheLaunchingOperatorProposesTheCategory) {
    // ResNet-50 with no kernel rules: cuDNN convolutions under aten::cudnn_convolution, GEMMs
    // under aten::mm/addmm, elementwise kernels under their ATen ops.
    const Workload w = readProfile(dataset("profiles/h200/resnet50_inference.json.gz"));
    const RuleSet rules = dataMovementOnly();
    const Breakdown before = computeBreakdown(w, rules);
    const std::vector<RuleSuggestion> s = suggestRules(before);
    ASSERT_FALSE(s.empty());
    double covered = 0;
    for (const RuleSuggestion& r : s) {
        EXPECT_FALSE(RuleSet::patternError(r.rule.pattern)) << r.rule.pattern;
        EXPECT_EQ(r.basis.rfind("operator ", 0), 0u) << r.basis;  // every kernel is linked
        EXPECT_FALSE(r.guessed);
        EXPECT_FALSE(r.kernels.empty());
        covered += r.totalUs;
        if (s.front().totalUs < r.totalUs)
            ADD_FAILURE() << "not largest first";
    }
    // The suggestions cover every kernel with a stem; accepting all of them makes the name rules
    // decide that time with the categories the operators gave.
    const Breakdown after = computeBreakdown(w, acceptSuggestions(rules, s));
    EXPECT_NEAR(after.decisionShare(Decision::Rule) + after.decisionShare(Decision::Kind), 1.0,
                1e-9);
    EXPECT_NEAR(covered, before.decisionUs[size_t(Decision::Operator)], 1e-6 * covered);
    for (Category c : kCategories)
        EXPECT_NEAR(after.share(c), before.share(c), 0.02) << categoryKey(c);
    EXPECT_EQ(acceptSuggestions(rules, s).name(), "data-movement-only + suggestions");
}

TEST(RuleSuggest, WithoutAnOperatorReachsOwnRulesOrAMarkedGuessPropose) {
    // vLLM replayed from a HIP graph: no kernel links to an operator. Reach's built-in rules
    // know the MoE GEMMs (matmul_ogs) and the unified attention by their names.
    const Workload w =
        readProfile(dataset("profiles/public/tracelens_vllm_decode_graph_mi300x.json.gz"));
    const std::vector<RuleSuggestion> s = suggestRules(computeBreakdown(w, dataMovementOnly()));
    ASSERT_GE(s.size(), 3u);
    const RuleSuggestion& top = s.front();
    EXPECT_EQ(top.rule.pattern, "^(void )?_matmul_ogs_NNT_");
    EXPECT_EQ(top.rule.category, Category::LibraryOptimized);
    EXPECT_EQ(top.rule.family, "gemm");
    EXPECT_EQ(top.basis.rfind("Reach's built-in rule", 0), 0u) << top.basis;
    EXPECT_EQ(top.kernels.size(), 2u);  // the plain and the _swiglu variant
    bool attention = false;
    for (const RuleSuggestion& r : s) {
        if (r.stem == "kernel_unified_attention") {
            attention = true;
            EXPECT_EQ(r.rule.category, Category::LibraryOptimized);
        }
    }
    EXPECT_TRUE(attention);
    // Nothing to suggest where the rules match everything.
    EXPECT_TRUE(suggestRules(computeBreakdown(w, RuleSet::builtinDefault())).empty());
}

}  // namespace reach_test_rulesuggest_test
