// Serving stacks' operators as problems (issue 41, item 2): each version's schema is matched by
// its argument count, each family's reference is called with the recorded arguments, and a
// recording that does not fit the schema (a stranger's trace, a newer stack) is skipped with
// why, never guessed into code.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/base/servingoperators.h"
#include "core/benchmark/problemsource.h"

namespace reach_test_servingproblem_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

json sig(json dims, json types, json concrete) {
    return {{"dims", dims}, {"types", types}, {"concrete", concrete}};
}

const char* kBf = "c10::BFloat16";

ProblemSource make(const std::string& op, const json& signature) {
    return problemSource(op, signature, {"test"}, "bfloat16");
}

bool has(const ProblemSource& p, const std::string& text) {
    return p.source.find(text) != std::string::npos;
}

json rotary(json positionsType, json head, json cache, json extraDims = json::array(),
            json extraTypes = json::array(), json extraConcrete = json::array()) {
    json dims = {{16}, {16, 256}, {16, 128}, json::array(), cache, json::array()};
    json types = {positionsType, kBf, kBf, "Scalar", kBf, "Scalar"};
    json concrete = {"", "", "", head, "", "False"};
    for (size_t i = 0; i < extraDims.size(); ++i) {
        dims.push_back(extraDims[i]);
        types.push_back(extraTypes[i]);
        concrete.push_back(extraConcrete[i]);
    }
    return sig(dims, types, concrete);
}

}  // namespace

TEST(ServingProblem, EachStacksSchemaByItsArgumentCount) {
    // SGLang's rmsnorm(output!, input, weight, eps, enable_pdl): the flag has no effect.
    ProblemSource p = make("sgl_kernel::rmsnorm",
                           sig({{8, 64}, {8, 64}, {64}, json::array(), json::array()},
                               {kBf, kBf, kBf, "Scalar", "Scalar"}, {"", "", "", "1e-06", "True"}));
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "return _rms_norm(x0, x1, 1e-06)"));
    EXPECT_TRUE(has(p, "# reach-precision: bf16"));
    // SGLang's fused add normalises the float32 sum, vLLM's the rounded one; the older SGLang
    // schema has no flag.
    p = make("sgl_kernel::fused_add_rmsnorm",
             sig({{8, 64}, {8, 64}, {64}, json::array()}, {kBf, kBf, kBf, "Scalar"},
                 {"", "", "", "1e-05"}));
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "_fused_add_rms_norm(x0, x1, x2, 1e-05, rounded=False)"));
    p = make("sgl_kernel::gemma_fused_add_rmsnorm",
             sig({{8, 64}, {8, 64}, {64}, json::array(), json::array()},
                 {kBf, kBf, kBf, "Scalar", "Scalar"}, {"", "", "", "1e-05", "False"}));
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "gemma=True, rounded=False)"));
    // vLLM's newest rms_norm takes no weight (None): the reference gets None.
    p = make("_C::rms_norm", sig({{8, 64}, {8, 64}, json::array(), json::array()},
                                 {kBf, kBf, "", "Scalar"}, {"", "", "", "1e-05"}));
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "return _rms_norm(x0, None, 1e-05)"));
    // vLLM's newest rotary_embedding: rope_dim_offset and inverse are passed on.
    p = make("_C::rotary_embedding",
             rotary("long int", "64", json::array({4096, 32}), {json::array(), json::array()},
                    {"Scalar", "Scalar"}, {"16", "True"}));
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "_rotary_embedding(x0, x1, x2, 64, x3, False, 16, True)"));
    EXPECT_TRUE(has(p, "_draw([16], [], torch.int64, 0, 4096)"));
    // An overload name is ignored, as for ATen's.
    EXPECT_TRUE(
        make("_C::silu_and_mul.default", sig({{8, 64}, {8, 128}}, {kBf, kBf}, {"", ""})).ok);
}

TEST(ServingProblem, WhatDoesNotFitTheSchemaIsSkippedWithWhy) {
    // An argument count no version has.
    ProblemSource p =
        make("_C::rms_norm", sig({{8, 64}, {8, 64}, {64}, json::array(), {1}},
                                 {kBf, kBf, kBf, "Scalar", kBf}, {"", "", "", "1e-05", ""}));
    EXPECT_FALSE(p.ok);
    EXPECT_NE(p.why.find("no schema of it in Reach's library has that many"), std::string::npos);
    // Floating positions, an odd rot_dim, a head narrower than rot_dim (+ offset).
    p = make("_C::rotary_embedding", rotary("float", "64", json::array({4096, 32})));
    EXPECT_NE(p.why.find("positions) is not an integer tensor"), std::string::npos) << p.why;
    p = make("_C::rotary_embedding", rotary("long int", "64", json::array({4096, 33})));
    EXPECT_NE(p.why.find("even rot_dim"), std::string::npos) << p.why;
    p = make("_C::rotary_embedding", rotary("long int", "16", json::array({4096, 32})));
    EXPECT_NE(p.why.find("head_size"), std::string::npos) << p.why;
    p = make("_C::rotary_embedding",
             rotary("long int", "64", json::array({4096, 32}), {json::array(), json::array()},
                    {"Scalar", "Scalar"}, {"40", "False"}));
    EXPECT_NE(p.why.find("rope_dim_offset + the cache's rot_dim"), std::string::npos) << p.why;
    // query not whole heads of head_size per position (250 is no multiple of 64).
    json bad = rotary("long int", "64", json::array({4096, 32}));
    bad["dims"][1] = {16, 250};
    EXPECT_NE(make("_C::rotary_embedding", bad).why.find("whole heads"), std::string::npos);
    // FP8 quantisation: a grouped scale, and a result that is not FP8.
    p = make("_C::static_scaled_fp8_quant",
             sig({{8, 64}, {8, 64}, {1}, json::array()},
                 {"c10::Float8_e4m3fn", kBf, "float", "ScalarList"}, {"", "", "", "[1, 128]"}));
    EXPECT_NE(p.why.find("group_shape"), std::string::npos) << p.why;
    p = make("_C::static_scaled_fp8_quant",
             sig({{8, 64}, {8, 64}, {1}}, {kBf, kBf, "float"}, {"", "", ""}));
    EXPECT_NE(p.why.find("not recorded as an FP8 tensor"), std::string::npos) << p.why;
    // The KV-cache write: an FP8 cache, and a slot per token missing.
    auto cache = [](const char* cacheType, int slots) {
        return sig({{32, 4, 64},
                    {32, 4, 64},
                    {100, 16, 4, 64},
                    {100, 16, 4, 64},
                    {slots},
                    json::array(),
                    {1},
                    {1}},
                   {kBf, kBf, cacheType, cacheType, "long int", "", "float", "float"},
                   {"", "", "", "", "", "", "", ""});
    };
    ASSERT_TRUE(make("_C_cache_ops::reshape_and_cache_flash", cache(kBf, 32)).ok);
    EXPECT_TRUE(has(make("_C_cache_ops::reshape_and_cache_flash", cache(kBf, 32)),
                    "torch.randperm(32)[:32].to(torch.int64)"));
    p = make("_C_cache_ops::reshape_and_cache_flash", cache("c10::Float8_e4m3fn", 32));
    EXPECT_NE(p.why.find("FP8 cache"), std::string::npos) << p.why;
    p = make("_C_cache_ops::reshape_and_cache_flash", cache(kBf, 31));
    EXPECT_NE(p.why.find("one slot per token"), std::string::npos) << p.why;
    // Integer data where the reference takes floating data.
    p = make("_C::silu_and_mul", sig({{8, 64}, {8, 128}}, {"int", "int"}, {"", ""}));
    EXPECT_NE(p.why.find("floating data"), std::string::npos) << p.why;
    // An odd last dimension cannot be split into gate and up.
    p = make("_C::silu_and_mul", sig({{8, 64}, {8, 127}}, {kBf, kBf}, {"", ""}));
    EXPECT_NE(p.why.find("not even"), std::string::npos) << p.why;
    // Operators not in the library stay skipped as before.
    p = make("_moe_C::topk_softmax", sig({{8, 2}, {8, 2}, {8, 2}, {8, 64}},
                                         {"float", "int", "int", "float"}, {"", "", "", ""}));
    EXPECT_NE(p.why.find("not an ATen operator"), std::string::npos) << p.why;
}

// A serving operator runs in its data's precision: a float32 cos/sin cache beside bf16 query and
// key is no "mixed" call (which no --precision would reproduce), and the file says it is cast.
TEST(ServingProblem, ThePrecisionIsTheDatas) {
    json s = rotary("long int", "64", json::array({4096, 32}));
    s["types"][4] = "float";
    EXPECT_EQ(callPrecision("_C::rotary_embedding", s), "bf16");
    EXPECT_EQ(callPrecision("aten::add", sig({{8}, {8}}, {kBf, "float"}, {"", ""})), "mixed");
    const ProblemSource p = make("_C::rotary_embedding", s);
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_TRUE(has(p, "argument 4 (float32) verified in bf16"));
}

// Every entry of the table is found by its name; names are unique per argument count.
TEST(ServingProblem, TheTableIsConsistent) {
    for (const ServingOperator& s : servingOperators()) {
        EXPECT_TRUE(servingOperator(s.name)) << s.name;
        EXPECT_EQ(servingOperator(s.name, s.roles.size()), &s) << s.name;
        EXPECT_FALSE(servingFamilyName(s.family).empty());
        const bool indexes =
            std::find(s.roles.begin(), s.roles.end(), ServingRole::Positions) != s.roles.end() ||
            std::find(s.roles.begin(), s.roles.end(), ServingRole::Slots) != s.roles.end();
        EXPECT_EQ(indexes, s.cacheArgument >= 0) << s.name;
    }
    EXPECT_FALSE(servingOperator("_C::rms_norm_evil"));
    EXPECT_FALSE(servingOperator("aten::rms_norm"));
}

}  // namespace reach_test_servingproblem_test
