// Elementwise operators over any shape (treated as flattened): relu, gelu (tanh), silu, add.
#include <cmath>
#include <limits>

#include "core/base/inputerror.h"
#include "core/base/parallel.h"
#include "core/verify/operators.h"

namespace reach {
namespace {

class Unary : public Operator {
public:
    std::string family() const override { return "elementwise"; }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"x", p.dtype, p.shape("x")}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, p.shape("x")}};
    }
    virtual double f(double x) const = 0;
    std::vector<std::vector<double>> reference(const Problem&,
                                               const std::vector<HostTensor>& in) const override {
        std::vector<double> y(static_cast<size_t>(in[0].numel()));
        parallelFor(in[0].numel(), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i)
                y[size_t(i)] = f(in[0].at(i));
        });
        return {std::move(y)};
    }
};

class Relu : public Unary {
public:
    std::string name() const override { return "relu"; }
    // relu(NaN) is NaN, as in PyTorch.
    double f(double x) const override { return std::isnan(x) || x > 0 ? x : 0.0; }
    double flops(const Problem& p) const override {
        return double(TensorSpec{"x", p.dtype, p.shape("x")}.numel());
    }
    // The largest negative output over max|ref|, over the elements whose reference is finite (a
    // NaN input's NaN is right; a wrong value there is the non_finite check's); NaN where an
    // output is NaN against a finite reference (never written). Exact in every precision: the
    // limit is 0. The Python judge's rule (reach_kb/invariants.py), pinned by
    // tests/data/oracle/parity.json on both sides.
    std::vector<InvariantValue> invariants(const Problem&, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds&) const override {
        double neg = 0, maxRef = 0;
        for (size_t i = 0; i < out[0].size(); ++i) {
            const double r = f(in[0].at(int64_t(i)));
            if (!std::isfinite(r))
                continue;
            maxRef = std::max(maxRef, std::fabs(r));
            const double v = out[0][i];
            if (std::isnan(v))
                neg = std::numeric_limits<double>::quiet_NaN();
            else if (!std::isnan(neg))
                neg = std::max(neg, -v);
        }
        return {{"non_negative", maxRef > 0 ? neg / maxRef : neg, 0.0,
                 "max(0, -min(y)) / max|ref| (relu never returns < 0)"}};
    }
};

class Gelu : public Unary {
public:
    std::string name() const override { return "gelu"; }
    // The tanh approximation (PyTorch approximate="tanh").
    double f(double x) const override {
        return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    }
    double flops(const Problem& p) const override {
        return 10.0 * TensorSpec{"x", p.dtype, p.shape("x")}.numel();
    }
};

class Silu : public Unary {
public:
    std::string name() const override { return "silu"; }
    double f(double x) const override { return x / (1.0 + std::exp(-x)); }
    double flops(const Problem& p) const override {
        return 5.0 * TensorSpec{"x", p.dtype, p.shape("x")}.numel();
    }
};

class Add : public Operator {
public:
    std::string name() const override { return "add"; }
    std::string family() const override { return "elementwise"; }
    void validate(const Problem& p) const override {
        if (p.shape("a") != p.shape("b"))
            throw InputError(p.file, "shapes.b", "the same shape as shapes.a (no broadcasting)");
    }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"a", p.dtype, p.shape("a")}, {"b", p.dtype, p.shape("b")}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, p.shape("a")}};
    }
    double flops(const Problem& p) const override {
        return double(TensorSpec{"a", p.dtype, p.shape("a")}.numel());
    }
    std::vector<std::vector<double>> reference(const Problem&,
                                               const std::vector<HostTensor>& in) const override {
        std::vector<double> y(static_cast<size_t>(in[0].numel()));
        parallelFor(in[0].numel(), [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i)
                y[size_t(i)] = in[0].at(i) + in[1].at(i);
        });
        return {std::move(y)};
    }
};

}  // namespace

namespace ops {
void registerElementwise() {
    registerOperator(std::make_unique<Relu>());
    registerOperator(std::make_unique<Gelu>());
    registerOperator(std::make_unique<Silu>());
    registerOperator(std::make_unique<Add>());
}
}  // namespace ops

}  // namespace reach
