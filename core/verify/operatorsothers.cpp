// Recommender and GEMM operators: embedding_bag_sum, multi_embedding_concat, dot_interaction,
// matmul.
#include <cmath>
#include <unordered_set>

#include "core/base/inputerror.h"
#include "core/base/parallel.h"
#include "core/verify/operators.h"

namespace reach {
namespace {

// ||a - b|| / ||b|| over two checksum vectors; NaN stays NaN so unwritten output fails.
double relDiff(const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return std::sqrt(num) / std::sqrt(den);
}

double distinctRows(const HostTensor& idx) {
    std::unordered_set<int64_t> s;
    for (int64_t i = 0; i < idx.numel(); ++i)
        s.insert(idx.index(i));
    return double(s.size());
}

class EmbeddingBagSum : public Operator {
public:
    std::string name() const override { return "embedding_bag_sum"; }
    std::string family() const override { return "embedding"; }
    void validate(const Problem& p) const override {
        p.shape("weight", 2);
        p.shape("indices", 1);
        if (p.shape("offsets", 1)[0] > p.shape("indices", 1)[0])
            throw InputError(p.file, "shapes.offsets", "no more bags than indices");
    }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"weight", p.dtype, p.shape("weight", 2)},
                {"indices", DType::I64, p.shape("indices", 1)},
                {"offsets", DType::I64, p.shape("offsets", 1)}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, {p.shape("offsets", 1)[0], p.shape("weight", 2)[1]}}};
    }
    std::vector<HostTensor> makeInputs(const Problem& p, uint64_t seed) const override {
        auto specs = inputSpecs(p);
        HostTensor w(specs[0]), idx(specs[1]), off(specs[2]);
        ops::fillNormal(w, seed * 1000003ull + 1, p.inputScale());
        ops::fillIndices(idx, seed * 1000003ull + 2, specs[0].shape[0]);
        // Bags of uneven length (jitter below half the mean spacing keeps offsets increasing),
        // so a kernel that assumes a fixed pooling factor is caught.
        int64_t L = specs[1].shape[0], B = specs[2].shape[0];
        HostTensor jitter(TensorSpec{"j", DType::F32, {B}});
        ops::fillUniform(jitter, seed * 1000003ull + 3, -0.4, 0.4);
        double spacing = double(L) / double(B);
        for (int64_t b = 0; b < B; ++b)
            off.set(b, b == 0 ? 0.0 : std::floor(spacing * (double(b) + jitter.at(b))));
        return {std::move(w), std::move(idx), std::move(off)};
    }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t D = p.shape("weight", 2)[1], L = in[1].numel(), B = in[2].numel();
        std::vector<double> y(static_cast<size_t>(B * D), 0.0);
        parallelFor(
            B,
            [&](int64_t bb, int64_t be) {
                for (int64_t b = bb; b < be; ++b) {
                    int64_t s = in[2].index(b), e = b + 1 < B ? in[2].index(b + 1) : L;
                    for (int64_t i = s; i < e; ++i) {
                        int64_t row = in[1].index(i);
                        for (int64_t d = 0; d < D; ++d)
                            y[size_t(b * D + d)] += in[0].at(row * D + d);
                    }
                }
            },
            1);
        return {std::move(y)};
    }
    double minimalBytes(const Problem& p, const std::vector<HostTensor>& in) const override {
        int64_t D = p.shape("weight", 2)[1];
        double es = double(dtypeSize(p.dtype));
        double rows = in.empty() ? double(p.shape("indices", 1)[0]) : distinctRows(in[1]);
        return rows * D * es + 8.0 * (in.empty() ? 0 : in[1].numel() + in[2].numel()) +
               double(p.shape("offsets", 1)[0]) * D * es;
    }
    double flops(const Problem& p) const override {
        return double(p.shape("indices", 1)[0]) * p.shape("weight", 2)[1];
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t D = p.shape("weight", 2)[1], B = in[2].numel();
        // Column checksum: summing y over bags equals summing every looked-up row.
        std::vector<double> got(static_cast<size_t>(D), 0.0), want(size_t(D), 0.0);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t d = 0; d < D; ++d)
                got[size_t(d)] += out[0][size_t(b * D + d)];
        for (int64_t i = in[2].index(0); i < in[1].numel(); ++i)
            for (int64_t d = 0; d < D; ++d)
                want[size_t(d)] += in[0].at(in[1].index(i) * D + d);
        return {{"column_checksum", relDiff(got, want), t.invariant,
                 "||sum_b y[b,:] - sum_i weight[indices[i],:]|| / ||...||"}};
    }
};

class MultiEmbeddingConcat : public Operator {
public:
    std::string name() const override { return "multi_embedding_concat"; }
    std::string family() const override { return "embedding"; }
    int64_t tables(const Problem& p) const { return p.shape("indices", 2)[0]; }
    int64_t pooling(const Problem& p) const { return p.intParam("pooling", 1); }
    int64_t batch(const Problem& p) const { return p.shape("indices", 2)[1] / pooling(p); }
    void validate(const Problem& p) const override {
        p.shape("weight", 2);
        if (pooling(p) <= 0 || p.shape("indices", 2)[1] % pooling(p) != 0)
            throw InputError(p.file, "params.pooling",
                             "a positive divisor of shapes.indices[1] (B * pooling)");
    }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        std::vector<TensorSpec> s;
        for (int64_t t = 0; t < tables(p); ++t)
            s.push_back({"weight" + std::to_string(t), p.dtype, p.shape("weight", 2)});
        s.push_back({"indices", DType::I64, p.shape("indices", 2)});
        return s;
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"y", p.dtype, {batch(p), tables(p) * p.shape("weight", 2)[1]}}};
    }
    std::vector<HostTensor> makeInputs(const Problem& p, uint64_t seed) const override {
        std::vector<HostTensor> in;
        uint64_t k = 0;
        for (const auto& s : inputSpecs(p)) {
            HostTensor t(s);
            if (s.dtype == DType::I64)
                ops::fillIndices(t, seed * 1000003ull + (++k), p.shape("weight", 2)[0]);
            else
                ops::fillNormal(t, seed * 1000003ull + (++k), p.inputScale());
            in.push_back(std::move(t));
        }
        return in;
    }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t T = tables(p), P = pooling(p), B = batch(p), D = p.shape("weight", 2)[1];
        const HostTensor& idx = in[size_t(T)];
        std::vector<double> y(static_cast<size_t>(B * T * D), 0.0);
        parallelFor(
            B,
            [&](int64_t bb, int64_t be) {
                for (int64_t b = bb; b < be; ++b)
                    for (int64_t t = 0; t < T; ++t)
                        for (int64_t j = 0; j < P; ++j) {
                            int64_t row = idx.index(t * B * P + b * P + j);
                            for (int64_t d = 0; d < D; ++d)
                                y[size_t(b * T * D + t * D + d)] += in[size_t(t)].at(row * D + d);
                        }
            },
            1);
        return {std::move(y)};
    }
    double minimalBytes(const Problem& p, const std::vector<HostTensor>& in) const override {
        int64_t T = tables(p), D = p.shape("weight", 2)[1];
        double es = double(dtypeSize(p.dtype));
        double rows = 0;
        if (in.empty()) {
            rows = double(p.shape("indices", 2)[0] * p.shape("indices", 2)[1]);
        } else {
            int64_t n = p.shape("indices", 2)[1];
            for (int64_t t = 0; t < T; ++t) {
                std::unordered_set<int64_t> s;
                for (int64_t i = 0; i < n; ++i)
                    s.insert(in[size_t(T)].index(t * n + i));
                rows += double(s.size());
            }
        }
        return rows * D * es + 8.0 * T * p.shape("indices", 2)[1] + double(batch(p)) * T * D * es;
    }
    double flops(const Problem& p) const override {
        return double(p.shape("indices", 2)[0]) * p.shape("indices", 2)[1] *
               p.shape("weight", 2)[1];
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        int64_t T = tables(p), P = pooling(p), B = batch(p), D = p.shape("weight", 2)[1];
        std::vector<double> got(static_cast<size_t>(T * D), 0.0), want(size_t(T * D), 0.0);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t c = 0; c < T * D; ++c)
                got[size_t(c)] += out[0][size_t(b * T * D + c)];
        for (int64_t tt = 0; tt < T; ++tt)
            for (int64_t i = 0; i < B * P; ++i) {
                int64_t row = in[size_t(T)].index(tt * B * P + i);
                for (int64_t d = 0; d < D; ++d)
                    want[size_t(tt * D + d)] += in[size_t(tt)].at(row * D + d);
            }
        return {{"column_checksum", relDiff(got, want), t.invariant,
                 "per table: ||sum_b y[b, block t] - sum of looked-up rows|| / ||...||"}};
    }
};

class DotInteraction : public Operator {
public:
    std::string name() const override { return "dot_interaction"; }
    std::string family() const override { return "interaction"; }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"x", p.dtype, p.shape("x", 3)}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        auto s = p.shape("x", 3);
        return {{"y", p.dtype, {s[0], s[1] * (s[1] - 1) / 2}}};
    }
    double flops(const Problem& p) const override {
        auto s = p.shape("x", 3);
        return 2.0 * s[0] * (s[1] * (s[1] - 1) / 2) * s[2];
    }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        auto s = p.shape("x", 3);
        int64_t B = s[0], F = s[1], D = s[2], NP = F * (F - 1) / 2;
        std::vector<double> y(static_cast<size_t>(B * NP));
        parallelFor(
            B,
            [&](int64_t bb, int64_t be) {
                std::vector<double> x(static_cast<size_t>(F * D));
                for (int64_t b = bb; b < be; ++b) {
                    for (int64_t k = 0; k < F * D; ++k)
                        x[size_t(k)] = in[0].at(b * F * D + k);
                    int64_t k = 0;
                    for (int64_t i = 1; i < F; ++i)
                        for (int64_t j = 0; j < i; ++j, ++k) {
                            double acc = 0;
                            for (int64_t d = 0; d < D; ++d)
                                acc += x[size_t(i * D + d)] * x[size_t(j * D + d)];
                            y[size_t(b * NP + k)] = acc;
                        }
                }
            },
            1);
        return {std::move(y)};
    }
    std::vector<std::vector<double>> referenceAt(
        const Problem& p, const std::vector<HostTensor>& in,
        const std::vector<std::vector<int64_t>>& positions) const override {
        auto s = p.shape("x", 3);
        const int64_t F = s[1], D = s[2], NP = F * (F - 1) / 2;
        // Pair k of a row is (i, j), j < i, in row-major order of the lower triangle.
        std::vector<std::pair<int64_t, int64_t>> pairs;
        for (int64_t i = 1; i < F; ++i)
            for (int64_t j = 0; j < i; ++j)
                pairs.emplace_back(i, j);
        const std::vector<int64_t>& pos = positions.at(0);
        std::vector<double> y(pos.size());
        parallelFor(
            int64_t(pos.size()),
            [&](int64_t b, int64_t e) {
                for (int64_t q = b; q < e; ++q) {
                    const int64_t row = pos[size_t(q)] / NP;
                    const auto [i, j] = pairs[size_t(pos[size_t(q)] % NP)];
                    double acc = 0;
                    for (int64_t d = 0; d < D; ++d)
                        acc += in[0].at((row * F + i) * D + d) * in[0].at((row * F + j) * D + d);
                    y[size_t(q)] = acc;
                }
            },
            256);
        return {std::move(y)};
    }
};

class Matmul : public Operator {
public:
    std::string name() const override { return "matmul"; }
    std::string family() const override { return "gemm"; }
    void validate(const Problem& p) const override {
        if (p.shape("a", 2)[1] != p.shape("b", 2)[0])
            throw InputError(p.file, "shapes.b", "b[0] equal to a[1] (K)");
    }
    std::vector<TensorSpec> inputSpecs(const Problem& p) const override {
        return {{"a", p.dtype, p.shape("a", 2)}, {"b", p.dtype, p.shape("b", 2)}};
    }
    std::vector<TensorSpec> outputSpecs(const Problem& p) const override {
        return {{"c", p.dtype, {p.shape("a", 2)[0], p.shape("b", 2)[1]}}};
    }
    double flops(const Problem& p) const override {
        return 2.0 * p.shape("a", 2)[0] * p.shape("a", 2)[1] * p.shape("b", 2)[1];
    }
    std::vector<std::vector<double>> reference(const Problem& p,
                                               const std::vector<HostTensor>& in) const override {
        int64_t M = p.shape("a", 2)[0], K = p.shape("a", 2)[1], N = p.shape("b", 2)[1];
        auto b = in[1].toDoubles();
        std::vector<double> c(static_cast<size_t>(M * N), 0.0);
        parallelFor(
            M,
            [&](int64_t mb, int64_t me) {
                for (int64_t m = mb; m < me; ++m) {
                    double* cr = c.data() + m * N;
                    for (int64_t k = 0; k < K; ++k) {
                        double av = in[0].at(m * K + k);
                        const double* br = b.data() + k * N;
                        for (int64_t n = 0; n < N; ++n)
                            cr[n] += av * br[n];
                    }
                }
            },
            1);
        return {std::move(c)};
    }
    std::vector<std::vector<double>> referenceAt(
        const Problem& p, const std::vector<HostTensor>& in,
        const std::vector<std::vector<int64_t>>& positions) const override {
        const int64_t K = p.shape("a", 2)[1], N = p.shape("b", 2)[1];
        const std::vector<int64_t>& pos = positions.at(0);
        std::vector<double> c(pos.size());
        parallelFor(
            int64_t(pos.size()),
            [&](int64_t b, int64_t e) {
                for (int64_t q = b; q < e; ++q) {
                    const int64_t m = pos[size_t(q)] / N, n = pos[size_t(q)] % N;
                    double acc = 0;
                    for (int64_t k = 0; k < K; ++k)
                        acc += in[0].at(m * K + k) * in[1].at(k * N + n);
                    c[size_t(q)] = acc;
                }
            },
            256);
        return {std::move(c)};
    }
    std::vector<InvariantValue> invariants(const Problem& p, const std::vector<HostTensor>& in,
                                           const std::vector<std::vector<double>>& out,
                                           const Thresholds& t) const override {
        // ABFT column checksum: 1^T C = (1^T A) B.
        int64_t M = p.shape("a", 2)[0], K = p.shape("a", 2)[1], N = p.shape("b", 2)[1];
        std::vector<double> colA(static_cast<size_t>(K), 0.0), want(size_t(N), 0.0),
            got(size_t(N), 0.0);
        for (int64_t m = 0; m < M; ++m)
            for (int64_t k = 0; k < K; ++k)
                colA[size_t(k)] += in[0].at(m * K + k);
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n)
                want[size_t(n)] += colA[size_t(k)] * in[1].at(k * N + n);
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n)
                got[size_t(n)] += out[0][size_t(m * N + n)];
        return {{"column_checksum", relDiff(got, want), t.invariant,
                 "||1^T C - (1^T A) B|| / ||(1^T A) B||"}};
    }
};

}  // namespace

namespace ops {
void registerOthers() {
    registerOperator(std::make_unique<EmbeddingBagSum>());
    registerOperator(std::make_unique<MultiEmbeddingConcat>());
    registerOperator(std::make_unique<DotInteraction>());
    registerOperator(std::make_unique<Matmul>());
}
}  // namespace ops

}  // namespace reach
