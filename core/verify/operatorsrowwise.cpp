// Row-wise operators over x[R, C]: softmax, log_softmax, layernorm, rmsnorm, sum_rows, cumsum.
#include <cmath>
#include <limits>

#include "core/base/parallel.h"
#include "core/verify/operators.h"

namespace reach {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Keeps the largest deviation, and NaN once any row gives NaN (an unwritten or non-finite row
// must fail the invariant, and std::max would drop the NaN).
struct MaxDev {
    double v = 0;
    void add(double d) {
        if (std::isnan(d) || std::isnan(v))
            v = kNaN;
        else
            v = std::max(v, d);
    }
};

template <typename F>
double maxOverRows(int64_t R, F perRow) {
    std::vector<double> dev(static_cast<size_t>(R));
    parallelFor(
        R,
        [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r)
                dev[size_t(r)] = perRow(r);
        },
        1);
    MaxDev m;
    for (double d : dev)
        m.add(d);
    return m.v;
}

class RowOp : public Operator {
public:
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"x", p.dtype, p.shape("x", 2)}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, p.shape("x", 2)}};
    }
    static int64_t rows(const Problem& p) { return p.shape("x", 2)[0]; }
    static int64_t cols(const Problem& p) { return p.shape("x", 2)[1]; }

    // Runs f(row, x_row(double*), y_row(double*)) over all rows in parallel.
    template <typename F>
    static std::vector<std::vector<double>> rowwise(const Problem& p, const HostTensor& x,
                                                    int64_t outCols, F f) {
        int64_t R = rows(p), C = cols(p);
        std::vector<double> y(static_cast<size_t>(R * outCols));
        parallelFor(
            R,
            [&](int64_t b, int64_t e) {
                std::vector<double> xr(static_cast<size_t>(C));
                for (int64_t r = b; r < e; ++r) {
                    for (int64_t c = 0; c < C; ++c)
                        xr[size_t(c)] = x.at(r * C + c);
                    f(r, xr.data(), y.data() + r * outCols);
                }
            },
            1);
        return {std::move(y)};
    }
};

class Softmax : public RowOp {
public:
    std::string name() const override { return "softmax"; }
    std::string family() const override { return "softmax"; }
    double flops(const Problem& p) const override { return 5.0 * rows(p) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        return rowwise(p, in[0], C, [C](int64_t, const double* x, double* y) {
            double m = -INFINITY, s = 0;
            for (int64_t c = 0; c < C; ++c)
                m = std::max(m, x[c]);
            for (int64_t c = 0; c < C; ++c)
                s += (y[c] = std::exp(x[c] - m));
            for (int64_t c = 0; c < C; ++c)
                y[c] /= s;
        });
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>&,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t R = rows(p), C = cols(p);
        const auto& y = out[0];
        double rowSum = maxOverRows(R, [&](int64_t r) {
            double s = 0;
            for (int64_t c = 0; c < C; ++c)
                s += y[size_t(r * C + c)];
            return std::fabs(s - 1.0);
        });
        double range = maxOverRows(R, [&](int64_t r) {
            double worst = 0;
            for (int64_t c = 0; c < C; ++c) {
                double v = y[size_t(r * C + c)];
                if (std::isnan(v))
                    return kNaN;
                worst = std::max({worst, -v, v - 1.0});
            }
            return worst;
        });
        return {{"row_sum", rowSum, t.invariant, "max over rows of |sum(y_row) - 1|"},
                {"range", range, t.invariant, "largest excursion of y outside [0, 1]"}};
    }
};

class LogSoftmax : public RowOp {
public:
    std::string name() const override { return "log_softmax"; }
    std::string family() const override { return "softmax"; }
    double flops(const Problem& p) const override { return 5.0 * rows(p) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        return rowwise(p, in[0], C, [C](int64_t, const double* x, double* y) {
            double m = -INFINITY, s = 0;
            for (int64_t c = 0; c < C; ++c)
                m = std::max(m, x[c]);
            for (int64_t c = 0; c < C; ++c)
                s += std::exp(x[c] - m);
            double lse = m + std::log(s);
            for (int64_t c = 0; c < C; ++c)
                y[c] = x[c] - lse;
        });
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>&,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t R = rows(p), C = cols(p);
        const auto& y = out[0];
        double dev = maxOverRows(R, [&](int64_t r) {
            double m = -INFINITY, s = 0;
            for (int64_t c = 0; c < C; ++c) {
                double v = y[size_t(r * C + c)];
                if (std::isnan(v))
                    return kNaN;
                m = std::max(m, v);
            }
            for (int64_t c = 0; c < C; ++c)
                s += std::exp(y[size_t(r * C + c)] - m);
            return std::fabs(m + std::log(s));
        });
        return {{"row_logsumexp", dev, t.invariant, "max over rows of |logsumexp(y_row)|"}};
    }
};

// Shared by layernorm and rmsnorm: per-row moments of the input, in double.
struct Moments {
    double mean, var, ms;
};
Moments moments(const HostTensor& x, int64_t r, int64_t C) {
    double s = 0, s2 = 0;
    for (int64_t c = 0; c < C; ++c) {
        double v = x.at(r * C + c);
        s += v;
        s2 += v * v;
    }
    double mean = s / double(C);
    return {mean, std::max(0.0, s2 / double(C) - mean * mean), s2 / double(C)};
}

class LayerNorm : public RowOp {
public:
    std::string name() const override { return "layernorm"; }
    std::string family() const override { return "norm"; }
    double eps(const Problem& p) const { return p.param("eps", 1e-5); }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        int64_t C = p.shape("x", 2)[1];
        return {{"x", p.dtype, p.shape("x", 2)}, {"weight", p.dtype, {C}}, {"bias", p.dtype, {C}}};
    }
    std::vector<HostTensor> makeInputs(const Problem& p, uint64_t seed) const override {
        auto in = Operator::makeInputs(p, seed);
        // Weights away from zero so that (y - bias) / weight is well conditioned.
        ops::fillUniform(in[1], seed * 31 + 7, 0.5, 1.5);
        ops::fillNormal(in[2], seed * 31 + 8, 0.5);
        return in;
    }
    double flops(const Problem& p) const override { return 8.0 * rows(p) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        double e = eps(p);
        auto w = in[1].toDoubles(), b = in[2].toDoubles();
        return rowwise(p, in[0], C, [&](int64_t, const double* x, double* y) {
            double s = 0, s2 = 0;
            for (int64_t c = 0; c < C; ++c)
                s += x[c];
            double mean = s / double(C);
            for (int64_t c = 0; c < C; ++c)
                s2 += (x[c] - mean) * (x[c] - mean);
            double inv = 1.0 / std::sqrt(s2 / double(C) + e);
            for (int64_t c = 0; c < C; ++c)
                y[c] = (x[c] - mean) * inv * w[size_t(c)] + b[size_t(c)];
        });
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t R = rows(p), C = cols(p);
        double e = eps(p);
        auto w = in[1].toDoubles(), b = in[2].toDoubles();
        const auto& y = out[0];
        std::vector<double> meanDev(static_cast<size_t>(R)), varDev(static_cast<size_t>(R));
        parallelFor(
            R,
            [&](int64_t rb, int64_t re) {
                for (int64_t r = rb; r < re; ++r) {
                    double s = 0, s2 = 0;
                    for (int64_t c = 0; c < C; ++c) {
                        double z = (y[size_t(r * C + c)] - b[size_t(c)]) / w[size_t(c)];
                        s += z;
                        s2 += z * z;
                    }
                    double mean = s / double(C), var = s2 / double(C) - mean * mean;
                    // With eps the normalized variance is var_x / (var_x + eps), not exactly 1.
                    Moments m = moments(in[0], r, C);
                    meanDev[size_t(r)] = std::fabs(mean);
                    varDev[size_t(r)] = std::fabs(var - m.var / (m.var + e));
                }
            },
            1);
        MaxDev md, vd;
        for (int64_t r = 0; r < R; ++r) {
            md.add(meanDev[size_t(r)]);
            vd.add(varDev[size_t(r)]);
        }
        return {{"row_mean", md.v, t.invariant, "max over rows of |mean((y-bias)/weight)|"},
                {"row_variance", vd.v, t.invariant,
                 "max over rows of |var((y-bias)/weight) - var(x)/(var(x)+eps)|"}};
    }
};

class RmsNorm : public RowOp {
public:
    std::string name() const override { return "rmsnorm"; }
    std::string family() const override { return "norm"; }
    double eps(const Problem& p) const { return p.param("eps", 1e-6); }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        int64_t C = p.shape("x", 2)[1];
        return {{"x", p.dtype, p.shape("x", 2)}, {"weight", p.dtype, {C}}};
    }
    std::vector<HostTensor> makeInputs(const Problem& p, uint64_t seed) const override {
        auto in = Operator::makeInputs(p, seed);
        ops::fillUniform(in[1], seed * 31 + 7, 0.5, 1.5);
        return in;
    }
    double flops(const Problem& p) const override { return 4.0 * rows(p) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        double e = eps(p);
        auto w = in[1].toDoubles();
        return rowwise(p, in[0], C, [&](int64_t, const double* x, double* y) {
            double s2 = 0;
            for (int64_t c = 0; c < C; ++c)
                s2 += x[c] * x[c];
            double inv = 1.0 / std::sqrt(s2 / double(C) + e);
            for (int64_t c = 0; c < C; ++c)
                y[c] = x[c] * inv * w[size_t(c)];
        });
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t R = rows(p), C = cols(p);
        double e = eps(p);
        auto w = in[1].toDoubles();
        const auto& y = out[0];
        double dev = maxOverRows(R, [&](int64_t r) {
            double s2 = 0;
            for (int64_t c = 0; c < C; ++c) {
                double z = y[size_t(r * C + c)] / w[size_t(c)];
                s2 += z * z;
            }
            Moments m = moments(in[0], r, C);
            return std::fabs(std::sqrt(s2 / double(C)) - std::sqrt(m.ms / (m.ms + e)));
        });
        return {{"row_rms", dev, t.invariant,
                 "max over rows of |rms(y/weight) - sqrt(ms(x)/(ms(x)+eps))|"}};
    }
};

class SumRows : public RowOp {
public:
    std::string name() const override { return "sum_rows"; }
    std::string family() const override { return "reduction"; }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, {rows(p)}}};
    }
    double flops(const Problem& p) const override { return double(rows(p)) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        return rowwise(p, in[0], 1, [C](int64_t, const double* x, double* y) {
            double s = 0;
            for (int64_t c = 0; c < C; ++c)
                s += x[c];
            y[0] = s;
        });
    }
    std::vector<InvariantValue> invariants(const Problem& /*p*/, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        double sx = 0, sabs = 0, sy = 0;
        for (int64_t i = 0; i < in[0].numel(); ++i) {
            double v = in[0].at(i);
            sx += v;
            sabs += std::fabs(v);
        }
        for (double v : out[0])
            sy += v;
        return {
            {"total_sum", std::fabs(sy - sx) / sabs, t.invariant, "|sum(y) - sum(x)| / sum(|x|)"}};
    }
};

class Cumsum : public RowOp {
public:
    std::string name() const override { return "cumsum"; }
    std::string family() const override { return "reduction"; }
    double flops(const Problem& p) const override { return double(rows(p)) * cols(p); }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t C = cols(p);
        return rowwise(p, in[0], C, [C](int64_t, const double* x, double* y) {
            double s = 0;
            for (int64_t c = 0; c < C; ++c)
                y[c] = (s += x[c]);
        });
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t R = rows(p), C = cols(p);
        double dev = maxOverRows(R, [&](int64_t r) {
            double s = 0, sabs = 0;
            for (int64_t c = 0; c < C; ++c) {
                double v = in[0].at(r * C + c);
                s += v;
                sabs += std::fabs(v);
            }
            return std::fabs(out[0][size_t(r * C + C - 1)] - s) / sabs;
        });
        return {{"last_equals_row_sum", dev, t.invariant,
                 "max over rows of |y[r, C-1] - sum(x_row)| / sum(|x_row|)"}};
    }
};

}  // namespace

namespace ops {
void registerRowwise() {
    registerOperator(std::make_unique<Softmax>());
    registerOperator(std::make_unique<LogSoftmax>());
    registerOperator(std::make_unique<LayerNorm>());
    registerOperator(std::make_unique<RmsNorm>());
    registerOperator(std::make_unique<SumRows>());
    registerOperator(std::make_unique<Cumsum>());
}
}  // namespace ops

}  // namespace reach
