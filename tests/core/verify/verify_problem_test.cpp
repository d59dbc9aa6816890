#include <gtest/gtest.h>

#include <filesystem>

#include "core/base/inputerror.h"
#include "core/verify/dtype.h"
#include "core/verify/operators.h"
#include "core/verify/problem.h"

namespace reach_test_verify_problem_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {
json softmaxDoc() {
    return json::parse(R"({"id":"s","op":"softmax","dtype":"bf16","shapes":{"x":[4,8]},
                          "params":{},"seed":7})");
}
std::string failPlace(const json& j) {
    try {
        parseProblem(j, "p.json");
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "p.json");
        return e.place();
    }
    return "no error";
}
}  // namespace

TEST(VerifyProblem, ParsesAndRoundTrips) {
    Problem p = parseProblem(softmaxDoc(), "p.json");
    EXPECT_EQ(p.op, "softmax");
    EXPECT_EQ(p.dtype, DType::BF16);
    EXPECT_EQ(p.seed, 7u);
    EXPECT_EQ(p.shape("x", 2), (std::vector<int64_t>{4, 8}));
    Problem q = parseProblem(p.toJson(), "q.json");
    EXPECT_EQ(q.toJson(), p.toJson());
}

TEST(VerifyProblem, BadFilesNameTheKey) {
    json j = softmaxDoc();
    j.erase("op");
    EXPECT_EQ(failPlace(j), "key 'op'");
    j = softmaxDoc();
    j["op"] = "conv2d";
    EXPECT_EQ(failPlace(j), "key 'op'");
    j = softmaxDoc();
    j["dtype"] = "f64";
    EXPECT_EQ(failPlace(j), "key 'dtype'");
    j = softmaxDoc();
    j["shapes"] = {{"y", {4, 8}}};
    EXPECT_EQ(failPlace(j), "shapes.x");
    j = softmaxDoc();
    j["shapes"]["x"] = {4, -8};
    EXPECT_EQ(failPlace(j), "shapes.x");
    j = softmaxDoc();
    j["shapes"]["x"] = {32};
    EXPECT_EQ(failPlace(j), "shapes.x");  // softmax needs rank 2
    j = softmaxDoc();
    j["seed"] = "seven";
    EXPECT_EQ(failPlace(j), "key 'seed'");
    j = json::parse(
        R"({"id":"m","op":"matmul","dtype":"f32","shapes":{"a":[4,8],"b":[9,4]},"seed":1})");
    EXPECT_EQ(failPlace(j), "shapes.b");
}

TEST(VerifyProblem, EveryShippedProblemLoads) {
    int n = 0;
    // resources/problems/large/ holds the large sizes the baselines are held to (docs/verifier.md).
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             std::string(REACH_SOURCE_DIR) + "/resources/problems")) {
        if (!e.is_regular_file() || e.path().extension() != ".json")
            continue;
        Problem p = loadProblem(e.path().string());
        const Operator& op = operatorFor(p.op);
        EXPECT_FALSE(op.inputSpecs(p).empty()) << e.path();
        EXPECT_GT(op.flops(p), 0) << e.path();
        ++n;
    }
    EXPECT_GE(n, 14 + 14);
}

TEST(VerifyProblem, UnreadableFileIsInputError) {
    EXPECT_THROW(loadProblem("/nonexistent/problem.json"), InputError);
}

TEST(VerifyDtype, Bf16RoundsToNearestEven) {
    EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
    EXPECT_EQ(bf16ToFloat(0x3f80), 1.0f);
    // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
    EXPECT_EQ(roundToBf16(1.0f + 1.0f / 256), 1.0f);
    EXPECT_EQ(roundToBf16(1.0f + 3.0f / 256), 1.0f + 4.0f / 256);
    EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
    EXPECT_TRUE(std::isnan(bf16ToFloat(0xFFFF)));  // the sentinel is a NaN
    for (float f : {0.1f, -3.5f, 1e-6f, 65504.f})
        EXPECT_NEAR(roundToBf16(f), f, std::fabs(f) / 256);
}

}  // namespace reach_test_verify_problem_test
