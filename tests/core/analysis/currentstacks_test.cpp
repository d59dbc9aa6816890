// The default rules on 143 real kernel names of current serving and training stacks (vLLM,
// SGLang, TensorRT-LLM, FlashInfer, CUTLASS, DeepGEMM/DeepEP, NCCL, Triton; Hopper and Blackwell),
// each with the public profile or issue it was copied from (tests/data/kernel-names). The
// expected category is what the kernel is (DOMAIN.md), written down before the rules were.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "core/analysis/ruleset.h"
#include "core/base/category.h"

namespace reach_test_currentstacks_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

nlohmann::json fixture() {
    std::ifstream in(std::string(REACH_TEST_DATA) + "/kernel-names/current_stacks.json");
    std::stringstream s;
    s << in.rdbuf();
    return nlohmann::json::parse(s.str());
}

}  // namespace

TEST(CurrentStackNames, EveryNameLandsInItsCategory) {
    const nlohmann::json doc = fixture();
    const RuleSet rules = RuleSet::builtinDefault();
    ASSERT_GE(doc["entries"].size(), 100u);
    std::map<std::string, int> perCategory;
    for (const nlohmann::json& e : doc["entries"]) {
        const std::string name = e["name"].get<std::string>();
        const std::string expected = e["category"].get<std::string>();
        ASSERT_FALSE(e["source"].get<std::string>().empty()) << name;
        const ActivityKind kind = name.rfind("Memcpy", 0) == 0   ? ActivityKind::Memcpy
                                  : name.rfind("Memset", 0) == 0 ? ActivityKind::Memset
                                                                 : ActivityKind::Kernel;
        const RuleSet::Match m = rules.classify(name, kind);
        EXPECT_EQ(categoryKey(m.category), expected)
            << name << "\n  family " << e["family"] << ", stack " << e["stack"] << ", rule "
            << m.rule << " (" << m.family << ")";
        ++perCategory[expected];
    }
    // All three categories are exercised, not only the easy one.
    EXPECT_GE(perCategory["library_optimized"], 30);
    EXPECT_GE(perCategory["addressable"], 50);
    EXPECT_GE(perCategory["overhead"], 10);
}

TEST(CurrentStackNames, TheOrderingHazardsOfTheIssue) {
    // Kernels whose names say "cutlass", "gemm", "flash" or "flashinfer" without being GEMMs or
    // attention: the MoE finalize that used to count as a GEMM, a KV-cache write, FlashInfer's
    // norm and activation kernels, a quantizer named after DeepGEMM.
    const RuleSet rules = RuleSet::builtinDefault();
    struct Case {
        const char* name;
        Category category;
        const char* family;
    };
    const Case cases[] = {
        {"void tensorrt_llm::kernels::cutlass_kernels::finalizeMoeRoutingKernel<__nv_bfloat16, "
         "__nv_bfloat16, __nv_bfloat16>(...)",
         Category::Addressable, "moe_routing"},
        {"void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<cutlass::"
         "bfloat16_t, cutlass::bfloat16_t, 4, true> >(...)",
         Category::Addressable, "moe_routing"},
        {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, "
         "(vllm::Fp8KVCacheDataType)1>(...)",
         Category::Addressable, "kv_cache"},
        {"void flashinfer::norm::FusedAddRMSNormKernel<(unsigned int)8, __half>(T2 *, T2 *)",
         Category::Addressable, "norm"},
        {"void flashinfer::activation::act_and_mul_kernel<__half, &silu<float>>(T1 *, const T1 *, "
         "int)",
         Category::Addressable, "elementwise"},
        {"_per_token_group_quant_mla_deep_gemm_masked_fp8", Category::Addressable, "quant"},
        {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<...>(...)",
         Category::LibraryOptimized, "attention"},
        {"bmm_E2m1_E2m1E2m1_Fp32_t128x8x512u2_s3_et128x8_m128x8x64_cga1x1x1_16dp256b_TN_schedS_"
         "sm100f",
         Category::LibraryOptimized, "gemm"},
        {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(...)",
         Category::Overhead, "communication"},
    };
    for (const Case& c : cases) {
        const RuleSet::Match m = rules.classify(c.name, ActivityKind::Kernel);
        EXPECT_EQ(categoryKey(m.category), categoryKey(c.category)) << c.name;
        EXPECT_EQ(m.family, c.family) << c.name;
    }
}

}  // namespace reach_test_currentstacks_test
