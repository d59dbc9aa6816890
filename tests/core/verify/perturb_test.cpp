// A timed call's inputs made new (core/verify/perturb.h): every floating element times its own
// factor in [0.75, 1.25), reproducible from the seed, never the same twice; indices untouched.
// (tests/gpu/devicekernels_test.cpp checks the GPU does the same, bit for bit.) And the reference
// at sampled elements, which the checks of those calls use, is the whole reference's there.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/verify/operators.h"
#include "core/verify/perturb.h"
#include "core/verify/sampledcheck.h"

namespace reach_test_perturb_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(Perturb, FactorsInRangeAndExactInFloat) {
    for (uint64_t i = 0; i < 100000; ++i) {
        const float f = perturbFactor(42, i);
        ASSERT_GE(f, 0.75f);
        ASSERT_LT(f, 1.25f);
        ASSERT_EQ(double(f), std::ldexp(std::round(std::ldexp(double(f), 23)), -23)) << i;
    }
    EXPECT_NE(perturbFactor(42, 0), perturbFactor(43, 0));
}

TEST(Perturb, EveryFloatingElementChangesAndTheSeedReproducesIt) {
    for (DType dt : {DType::F32, DType::BF16}) {
        HostTensor t(TensorSpec{"x", dt, {4096}});
        for (int64_t i = 0; i < 4096; ++i)
            t.set(i, 1.0 + double(i % 97));
        HostTensor a = t, b = t, c = t;
        perturbHost(a, 7);
        perturbHost(b, 7);
        perturbHost(c, 8);
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_NE(a.bytes, c.bytes);
        int64_t changed = 0;
        for (int64_t i = 0; i < 4096; ++i) {
            const double ratio = a.at(i) / t.at(i);
            EXPECT_GE(ratio, 0.74);
            EXPECT_LE(ratio, 1.26);
            changed += a.at(i) != t.at(i);
        }
        EXPECT_GT(changed, 4000);  // a few bf16 products round back to the same value
    }
    HostTensor idx(TensorSpec{"i", DType::I64, {16}});
    for (int64_t i = 0; i < 16; ++i)
        idx.set(i, double(i));
    HostTensor same = idx;
    perturbHost(same, 7);
    EXPECT_EQ(same.bytes, idx.bytes);
}

TEST(ReferenceAt, IsTheWholeReferenceAtTheSampledElements) {
    for (const std::string& name : operatorNames()) {
        SCOPED_TRACE(name);
        const Operator& op = operatorFor(name);
        nlohmann::json j = {{"id", "t"}, {"op", name}, {"dtype", "f32"}, {"seed", 1}};
        if (name == "matmul")
            j["shapes"] = {{"a", {33, 40}}, {"b", {40, 29}}};
        else if (name == "dot_interaction")
            j["shapes"] = {{"x", {16, 9, 8}}};
        else if (name == "embedding_bag_sum")
            j["shapes"] = {{"weight", {100, 8}}, {"indices", {64}}, {"offsets", {16}}};
        else if (name == "multi_embedding_concat")
            j = nlohmann::json{{"id", "t"},
                               {"op", name},
                               {"dtype", "f32"},
                               {"seed", 1},
                               {"shapes", {{"weight", {100, 8}}, {"indices", {3, 32}}}},
                               {"params", {{"pooling", 2}}}};
        else if (name == "add")
            j["shapes"] = {{"a", {64, 32}}, {"b", {64, 32}}};
        else
            j["shapes"] = {{"x", {24, 40}}};
        const Problem p = parseProblem(j, "t.json");
        const auto in = op.makeInputs(p, 3);
        const auto full = op.reference(p, in);
        std::mt19937_64 rng(5);
        const SamplePositions pos = drawSamplePositions(op.outputSpecs(p), rng, 50);
        const auto at = op.referenceAt(p, in, pos.perOutput);
        ASSERT_EQ(at.size(), full.size());
        for (size_t k = 0; k < at.size(); ++k)
            for (size_t q = 0; q < pos.perOutput[k].size(); ++q)
                EXPECT_NEAR(at[k][q], full[k][size_t(pos.perOutput[k][q])],
                            1e-9 * (1 + std::fabs(full[k][size_t(pos.perOutput[k][q])])));
    }
}

}  // namespace reach_test_perturb_test
