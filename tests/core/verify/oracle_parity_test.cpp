// The C++ oracle gives the numbers the Python one gives, on the same arrays (issue 39):
// tests/data/oracle/parity.json holds each case's inputs and the numbers docs/verifier.md says
// an oracle must give (written by tests/data/oracle/make_parity.py in plain float64 Python);
// tests/python/test_oracle_parity.py reads the same file for reach_kb's oracle and invariants.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "core/verify/operators.h"
#include "core/verify/oracle.h"
#include "core/verify/problem.h"

namespace reach_test_oracle_parity_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;

namespace {

// A number of the file: the strings "nan", "inf", "-inf" stand for what JSON cannot hold.
double num(const json& v) {
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan")
            return std::numeric_limits<double>::quiet_NaN();
        return s == "inf" ? std::numeric_limits<double>::infinity()
                          : -std::numeric_limits<double>::infinity();
    }
    return v.get<double>();
}

bool close(double got, double want) {
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    return std::fabs(got - want) <= 1e-12 + 1e-9 * std::fabs(want);
}

json cases() {
    std::ifstream in(std::string(REACH_TEST_DATA) + "/oracle/parity.json");
    EXPECT_TRUE(in.good()) << "tests/data/oracle/parity.json";
    return json::parse(in)["cases"];
}

// The case's arrays in the C++ oracle's terms: x and the operator's other inputs at its init
// (weight 1, bias 0, as the Python side takes a module at its init), the reference as given, the
// output written where the file has a value and left as the sentinel (unwritten) where null.
struct Arrays {
    Problem problem;
    const Operator* op;
    std::vector<HostTensor> inputs, outputs;
    std::vector<std::vector<double>> ref;

    explicit Arrays(const json& c)
        : problem(parseProblem(json{{"id", c["name"]},
                                    {"op", c["op"]},
                                    {"dtype", c["dtype"]},
                                    {"shapes", {{"x", {c["x"].size(), c["x"][0].size()}}}},
                                    {"seed", 1}},
                               "parity.json")),
          op(&operatorFor(problem.op)) {
        inputs = op->makeInputs(problem, problem.seed);
        int64_t i = 0;
        for (const json& row : c["x"])
            for (const json& v : row)
                inputs[0].set(i++, num(v));
        for (size_t k = 1; k < inputs.size(); ++k)
            for (int64_t j = 0; j < inputs[k].numel(); ++j)
                inputs[k].set(j, inputs[k].spec.name == "bias" ? 0.0 : 1.0);
        ref.emplace_back();
        for (const json& row : c["reference"])
            for (const json& v : row)
                ref[0].push_back(num(v));
        HostTensor out(op->outputSpecs(problem).at(0));
        fillSentinel(out);
        i = 0;
        for (const json& row : c["output"])
            for (const json& v : row) {
                if (!v.is_null())
                    out.set(i, num(v));
                ++i;
            }
        outputs.push_back(std::move(out));
    }

    OracleVerdict evaluate() const {
        OracleInput in;
        in.problem = &problem;
        in.op = op;
        in.inputs = &inputs;
        in.inputsAfter = &inputs;
        in.outputs = &outputs;
        in.reference = &ref;
        in.thresholds = Thresholds::forDtype(problem.dtype);
        return evaluateOutputs(in);
    }
};

}  // namespace

TEST(OracleParity, TheMetricsAreThoseOfTheSharedVectors) {
    for (const json& c : cases()) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const Arrays a(c);
        const OracleMetrics m = a.evaluate().metrics;
        const json& e = c["expect"];
        EXPECT_PRED2(close, m.relFrobenius, num(e["rel_frobenius"]));
        EXPECT_PRED2(close, m.normMaxError, num(e["norm_max_error"]));
        EXPECT_EQ(m.writtenFraction, e["written_fraction"].get<double>());
        EXPECT_EQ(m.nonFinite, e["non_finite"].get<int64_t>());
        EXPECT_EQ(m.kernelbenchAllclose, e["kernelbench_allclose"].get<bool>());
        EXPECT_EQ(m.zerosPassKernelbench, e["zeros_pass_kernelbench"].get<bool>());
        EXPECT_EQ(kernelBenchTolerance(a.problem.dtype),
                  c["dtype"] == "f32" ? 1e-4 : 1e-2);  // thresholds.json, as Python reads it
    }
}

TEST(OracleParity, TheInvariantsAreThoseOfTheSharedVectors) {
    for (const json& c : cases()) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const Arrays a(c);
        const OracleMetrics m = a.evaluate().metrics;
        const json& want = c["expect"]["invariants"];
        ASSERT_EQ(m.invariants.size(), want.size());
        const double invariantLimit = Thresholds::forDtype(a.problem.dtype).invariant;
        for (const CheckResult& got : m.invariants) {
            const std::string name = got.name.substr(got.name.find(':') + 1);
            ASSERT_TRUE(want.contains(name)) << got.name;
            EXPECT_PRED2(close, got.value, num(want[name]["value"])) << name;
            const json& limit = want[name]["threshold"];
            EXPECT_EQ(got.threshold, limit == "invariant" ? invariantLimit : limit.get<double>())
                << name;
        }
    }
}

}  // namespace reach_test_oracle_parity_test
