// Every oracle metric and invariant on host arrays, including the study's two cheats (softmax
// in 1024-column chunks whose rows sum to 384; 0.3% of the output written) and all zeros.
#include <gtest/gtest.h>

#include <cmath>

#include "core/base/inputerror.h"
#include "core/verify/operators.h"
#include "core/verify/oracle.h"
#include "core/verify/problem.h"

namespace reach_test_verify_oracle_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

struct Case {
    Problem problem;
    const Operator* op;
    std::vector<HostTensor> inputs;
    std::vector<std::vector<double>> ref;
    std::vector<HostTensor> outputs;  // starts as the sentinel (nothing written)

    explicit Case(const json& j) : problem(parseProblem(j, "test.json")) {
        op = &operatorFor(problem.op);
        inputs = op->makeInputs(problem, problem.seed);
        ref = op->reference(problem, inputs);
        for (const auto& s : op->outputSpecs(problem)) {
            HostTensor t(s);
            fillSentinel(t);
            outputs.push_back(std::move(t));
        }
    }
    void writeReference() {
        for (size_t o = 0; o < outputs.size(); ++o)
            for (int64_t i = 0; i < outputs[o].numel(); ++i)
                outputs[o].set(i, ref[o][size_t(i)]);
    }
    OracleVerdict evaluate(int64_t canary = 0, const std::vector<HostTensor>* after = nullptr) {
        OracleInput in;
        in.problem = &problem;
        in.op = op;
        in.inputs = &inputs;
        in.inputsAfter = after ? after : &inputs;
        in.outputs = &outputs;
        in.reference = &ref;
        in.canaryBytesChanged = canary;
        in.thresholds = Thresholds::forDtype(problem.dtype);
        return evaluateOutputs(in);
    }
};

const CheckResult& check(const OracleVerdict& v, const std::string& name) {
    for (const auto& c : v.checks)
        if (c.name == name)
            return c;
    static CheckResult none{"missing", 0, 0, false, ""};
    ADD_FAILURE() << "no check " << name;
    return none;
}

// The study's KernelBench softmax: rows of 393216 = 384 * 1024 columns, torch.rand inputs.
json wideSoftmax() {
    return json::parse(R"({"id":"kb23","op":"softmax","dtype":"bf16","shapes":{"x":[2,393216]},
        "params":{"distribution":"uniform"},"seed":3})");
}

}  // namespace

TEST(VerifyOracle, CorrectOutputPassesEveryCheck) {
    Case c(wideSoftmax());
    c.writeReference();
    OracleVerdict v = c.evaluate();
    EXPECT_TRUE(v.passed) << (v.reasons.empty() ? "" : v.reasons[0]);
    EXPECT_EQ(v.metrics.writtenFraction, 1.0);
    EXPECT_EQ(v.metrics.nonFinite, 0);
    EXPECT_LT(v.metrics.relFrobenius, 4e-3);  // bf16 rounding only
    EXPECT_TRUE(v.metrics.kernelbenchAllclose);
}

TEST(VerifyOracle, AllZerosFailsButFoolsKernelBench) {
    Case c(wideSoftmax());
    for (auto& o : c.outputs)
        for (int64_t i = 0; i < o.numel(); ++i)
            o.set(i, 0.0);
    OracleVerdict v = c.evaluate();
    EXPECT_FALSE(v.passed);
    EXPECT_DOUBLE_EQ(v.metrics.relFrobenius, 1.0);
    EXPECT_DOUBLE_EQ(v.metrics.normMaxError, 1.0);
    EXPECT_FALSE(check(v, "rel_frobenius").passed);
    EXPECT_NEAR(check(v, "invariant:row_sum").value, 1.0, 1e-12);  // rows sum to 0
    EXPECT_FALSE(check(v, "invariant:row_sum").passed);
    EXPECT_EQ(v.metrics.writtenFraction, 1.0);  // zeros are written: only the error catches it
    // The benchmark's allclose(atol=1e-2) passes zeros here: the reference is degenerate.
    EXPECT_TRUE(v.metrics.kernelbenchAllclose);
    EXPECT_TRUE(v.metrics.zerosPassKernelbench);
    EXPECT_LT(v.metrics.maxAbsReference, 1e-2);
}

// What Reach reports KernelBench would have said uses KernelBench's tolerance for the output's
// precision (resources/oracle/thresholds.json, as the Python worker): 1e-4 in fp32, 1e-2 in bf16.
TEST(VerifyOracle, KernelBenchsToleranceIsThatOfTheOutputsPrecision) {
    EXPECT_DOUBLE_EQ(kernelBenchTolerance(DType::F32), 1e-4);
    EXPECT_DOUBLE_EQ(kernelBenchTolerance(DType::BF16), 1e-2);
    EXPECT_DOUBLE_EQ(kernelBenchTolerance(DType::F16), 1e-2);
    for (const char* dtype : {"f32", "bf16"}) {  // C++ problems come in these two
        json j = json::parse(R"({"id":"s","op":"softmax","shapes":{"x":[4,64]},"seed":1})");
        j["dtype"] = dtype;
        Case c(j);
        for (size_t o = 0; o < c.outputs.size(); ++o)  // every element 1e-3 off
            for (int64_t i = 0; i < c.outputs[o].numel(); ++i)
                c.outputs[o].set(i, c.ref[o][size_t(i)] + 1e-3);
        const OracleVerdict v = c.evaluate();
        EXPECT_EQ(v.metrics.kernelbenchAllclose, std::string(dtype) != "f32") << dtype;
    }
}

TEST(VerifyOracle, ChunkedSoftmaxRowsSumTo384) {
    Case c(wideSoftmax());
    const int64_t C = 393216;
    HostTensor& y = c.outputs[0];
    for (int64_t r = 0; r < 2; ++r)
        for (int64_t c0 = 0; c0 < C; c0 += 1024) {
            double m = -1e300, s = 0;
            for (int64_t k = 0; k < 1024; ++k)
                m = std::max(m, c.inputs[0].at(r * C + c0 + k));
            for (int64_t k = 0; k < 1024; ++k)
                s += std::exp(c.inputs[0].at(r * C + c0 + k) - m);
            for (int64_t k = 0; k < 1024; ++k)
                y.set(r * C + c0 + k, std::exp(c.inputs[0].at(r * C + c0 + k) - m) / s);
        }
    OracleVerdict v = c.evaluate();
    EXPECT_FALSE(v.passed);
    // Each of the 384 chunks sums to 1, so each row sums to 384: |384 - 1| = 383.
    EXPECT_NEAR(check(v, "invariant:row_sum").value, 383.0, 383.0 * 1e-2);
    EXPECT_GT(v.metrics.relFrobenius, 100);
    EXPECT_TRUE(v.metrics.kernelbenchAllclose);  // and the benchmark would have passed it
}

TEST(VerifyOracle, ZeroPointThreePercentWrittenFails) {
    Case c(wideSoftmax());
    int64_t n = c.outputs[0].numel(), k = n * 3 / 1000;
    for (int64_t i = 0; i < k; ++i)
        c.outputs[0].set(i, c.ref[0][size_t(i)]);
    OracleVerdict v = c.evaluate();
    EXPECT_FALSE(v.passed);
    EXPECT_NEAR(v.metrics.writtenFraction, 0.003, 1e-5);
    EXPECT_EQ(v.metrics.writtenCount, k);
    EXPECT_FALSE(check(v, "written_fraction").passed);
    EXPECT_TRUE(std::isnan(check(v, "invariant:row_sum").value));  // unwritten rows are NaN
    EXPECT_FALSE(check(v, "invariant:row_sum").passed);
    // Read as a fresh (zeroed) allocation, KernelBench's check would have passed it.
    EXPECT_TRUE(v.metrics.kernelbenchAllclose);
}

TEST(VerifyOracle, NanRowsAreNonFinite) {
    Case c(
        json::parse(R"({"id":"s","op":"softmax","dtype":"f32","shapes":{"x":[64,256]},"seed":1})"));
    c.writeReference();
    for (int64_t k = 0; k < 256; ++k)
        c.outputs[0].set(5 * 256 + k, std::nan(""));
    OracleVerdict v = c.evaluate();
    EXPECT_FALSE(v.passed);
    EXPECT_EQ(v.metrics.nonFinite, 256);
    EXPECT_FALSE(check(v, "non_finite").passed);
    EXPECT_TRUE(std::isnan(v.metrics.relFrobenius));
    EXPECT_FALSE(check(v, "rel_frobenius").passed);  // NaN never passes
    EXPECT_FALSE(v.metrics.kernelbenchAllclose);
}

TEST(VerifyOracle, CanariesAndInputsUnchanged) {
    Case c(json::parse(R"({"id":"r","op":"relu","dtype":"f32","shapes":{"x":[1000]},"seed":2})"));
    c.writeReference();
    EXPECT_TRUE(c.evaluate().passed);
    OracleVerdict oob = c.evaluate(/*canary=*/256);
    EXPECT_FALSE(oob.passed);
    EXPECT_EQ(oob.metrics.canaryBytesChanged, 256);
    EXPECT_FALSE(check(oob, "canaries").passed);
    std::vector<HostTensor> after = c.inputs;
    after[0].set(17, 42.0);
    OracleVerdict mod = c.evaluate(0, &after);
    EXPECT_FALSE(mod.metrics.inputsUnchanged);
    EXPECT_FALSE(check(mod, "inputs_unchanged").passed);
}

TEST(VerifyOracle, ErrorMetricsOnKnownArrays) {
    // y = relu(x); write ref + d on two elements and compute the metrics by hand.
    Case c(json::parse(R"({"id":"r","op":"relu","dtype":"f32","shapes":{"x":[4096]},"seed":9})"));
    c.writeReference();
    c.outputs[0].set(10, c.ref[0][10] + 0.5);
    c.outputs[0].set(20, c.ref[0][20] - 0.25);
    double refNorm = 0, maxRef = 0;
    for (double r : c.ref[0]) {
        refNorm += r * r;
        maxRef = std::max(maxRef, std::fabs(r));
    }
    // f32 rounding of the written values adds < 1e-7 relative.
    double d10 = double(float(c.ref[0][10] + 0.5)) - c.ref[0][10];
    double d20 = double(float(c.ref[0][20] - 0.25)) - c.ref[0][20];
    OracleVerdict v = c.evaluate();
    EXPECT_NEAR(v.metrics.relFrobenius, std::sqrt(d10 * d10 + d20 * d20) / std::sqrt(refNorm),
                1e-6);
    EXPECT_NEAR(v.metrics.normMaxError, 0.5 / maxRef, 1e-6);
    EXPECT_FALSE(v.passed);
}

TEST(VerifyOracle, ThresholdsAreConfigurable) {
    Thresholds t = Thresholds::forDtype(DType::BF16);
    EXPECT_DOUBLE_EQ(t.relFrobenius, 1e-2);
    t.apply(json{{"rel_frobenius", 0.5}, {"written_fraction", 0.99}}, "t.json");
    EXPECT_DOUBLE_EQ(t.relFrobenius, 0.5);
    EXPECT_DOUBLE_EQ(t.writtenFraction, 0.99);
    EXPECT_THROW(t.apply(json{{"invariant", "big"}}, "t.json"), InputError);
    EXPECT_LT(Thresholds::forDtype(DType::F32).relFrobenius, t.relFrobenius);
}

// Every operator: its own reference passes its invariants and the error checks, and a wrong
// output (the reference scaled by 1.5 in the first half) fails the error check and, where the
// operator has invariants, at least one of them.
class EveryOperator : public ::testing::TestWithParam<std::string> {};

json smallProblem(const std::string& op, const std::string& dtype) {
    json j = {{"id", op}, {"op", op}, {"dtype", dtype}, {"seed", 5}, {"params", json::object()}};
    if (op == "relu" || op == "gelu" || op == "silu")
        j["shapes"] = {{"x", {3000}}};
    else if (op == "add")
        j["shapes"] = {{"a", {3000}}, {"b", {3000}}};
    else if (op == "embedding_bag_sum")
        j["shapes"] = {{"weight", {500, 16}}, {"indices", {640}}, {"offsets", {40}}};
    else if (op == "multi_embedding_concat") {
        j["shapes"] = {{"weight", {300, 8}}, {"indices", {3, 120}}};
        j["params"] = {{"pooling", 4}};
    } else if (op == "dot_interaction")
        j["shapes"] = {{"x", {10, 6, 16}}};
    else if (op == "matmul")
        j["shapes"] = {{"a", {24, 40}}, {"b", {40, 16}}};
    else
        j["shapes"] = {{"x", {32, 300}}};
    return j;
}

TEST_P(EveryOperator, ReferencePassesAndWrongOutputFails) {
    for (const char* dt : {"f32", "bf16"}) {
        Case c(smallProblem(GetParam(), dt));
        c.writeReference();
        OracleVerdict ok = c.evaluate();
        EXPECT_TRUE(ok.passed) << GetParam() << " " << dt << ": "
                               << (ok.reasons.empty() ? "" : ok.reasons[0]);
        size_t invariants = ok.metrics.invariants.size();
        for (int64_t i = 0; i < c.outputs[0].numel() / 2; ++i)
            c.outputs[0].set(i, c.ref[0][size_t(i)] * 1.5 + 0.1);
        OracleVerdict bad = c.evaluate();
        EXPECT_FALSE(bad.passed) << GetParam();
        EXPECT_FALSE(check(bad, "rel_frobenius").passed) << GetParam();
        if (invariants > 0) {
            // A uniform shift by -max|ref| breaks every invariant (row sums, moments, signs,
            // checksums) while a scaled half may not (relu stays non-negative).
            double maxRef = 0;
            for (double r : c.ref[0])
                maxRef = std::max(maxRef, std::fabs(r));
            for (int64_t i = 0; i < c.outputs[0].numel(); ++i)
                c.outputs[0].set(i, c.ref[0][size_t(i)] - maxRef);
            OracleVerdict shifted = c.evaluate();
            bool anyFailed = false;
            for (const auto& inv : shifted.metrics.invariants)
                anyFailed |= !inv.passed;
            EXPECT_TRUE(anyFailed) << GetParam() << " " << dt << ": no invariant caught it";
        }
    }
}

TEST_P(EveryOperator, InputsAreRandomNeverZeroAndSeeded) {
    Case a(smallProblem(GetParam(), "f32"));
    Problem p = a.problem;
    auto again = a.op->makeInputs(p, p.seed);
    auto other = a.op->makeInputs(p, p.seed + 1);
    EXPECT_EQ(again[0].bytes, a.inputs[0].bytes);
    EXPECT_NE(other[0].bytes, a.inputs[0].bytes);
    for (const auto& t : a.inputs) {
        if (!isFloating(t.spec.dtype))
            continue;
        for (int64_t i = 0; i < t.numel(); ++i)
            ASSERT_NE(t.at(i), 0.0);
    }
    EXPECT_GT(a.op->minimalBytes(p, a.inputs), 0);
}

INSTANTIATE_TEST_SUITE_P(Verify, EveryOperator, ::testing::ValuesIn(operatorNames()));

TEST(VerifyOracle, ShippedOperatorsAreTheFourteen) {
    std::vector<std::string> want = {"add",
                                     "cumsum",
                                     "dot_interaction",
                                     "embedding_bag_sum",
                                     "gelu",
                                     "layernorm",
                                     "log_softmax",
                                     "matmul",
                                     "multi_embedding_concat",
                                     "relu",
                                     "rmsnorm",
                                     "silu",
                                     "softmax",
                                     "sum_rows"};
    EXPECT_EQ(operatorNames(), want);
}

TEST(VerifyOracle, LayerNormInvariantAccountsForEps) {
    // Tiny inputs (x0.01): var(x) = 1e-4 is comparable to eps, so the normalized variance is
    // var/(var+eps) ~ 0.91, not 1. A correct output must still pass.
    json j = smallProblem("layernorm", "f32");
    j["params"] = {{"scale", 0.01}};
    Case c(j);
    c.writeReference();
    EXPECT_TRUE(c.evaluate().passed);
}

}  // namespace reach_test_verify_oracle_test
