#include "core/headroom/work.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/base/servingoperators.h"

namespace reach {

namespace {

using Args = std::vector<CallArg>;
using Shape = std::vector<int64_t>;

double numel(const Shape& d) {
    double n = 1;
    for (int64_t x : d)
        n *= double(x);
    return n;
}

// A tensor input (not a Scalar, a None or a list).
bool isTensor(const Args& a, size_t i) {
    return i < a.size() && !a[i].isList && dtypeBytes(a[i].type) > 0;
}
bool isTensor(const Args& a, size_t i, size_t rank) {
    return isTensor(a, i) && a[i].dims.size() == rank;
}
int es(const Args& a, size_t i) {
    return i < a.size() ? dtypeBytes(a[i].type) : 0;
}
// The bytes an input occupies: its elements, except along dims of stride 0 (an expanded view
// such as index.expand(-1, D) is one row in memory, read once).
double tbytes(const Args& a, size_t i) {
    if (!isTensor(a, i))
        return 0;
    const CallArg& t = a[i];
    double n = 1;
    for (size_t d = 0; d < t.dims.size(); ++d) {
        if (t.strides.size() != t.dims.size() || t.strides[d] != 0)
            n *= double(t.dims[d]);
    }
    return n * dtypeBytes(t.type);
}
const std::string& concrete(const Args& a, size_t i) {
    static const std::string kNone;
    return i < a.size() ? a[i].concrete : kNone;
}

// "True"/"1" are true; "False", "0", "" false.
bool truthy(const std::string& s) {
    return s == "True" || s == "true" || s == "1";
}

// "[3, 3]" or "3" -> integers; nullopt when the text is neither.
std::optional<Shape> intList(const std::string& s) {
    Shape out;
    const char* p = s.data();
    const char* end = p + s.size();
    bool any = false;
    while (p < end) {
        if (*p == '-' || std::isdigit(static_cast<unsigned char>(*p))) {
            int64_t v = 0;
            auto r = std::from_chars(p, end, v);
            if (r.ec != std::errc())
                return std::nullopt;
            out.push_back(v);
            p = r.ptr;
            any = true;
        } else if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') {
            ++p;
        } else {
            return std::nullopt;
        }
    }
    if (!any && s.find('[') == std::string::npos)
        return std::nullopt;
    return out;
}

// "[True, True, False]" -> booleans.
std::vector<bool> boolList(const std::string& s) {
    std::vector<bool> out;
    size_t i = 0;
    while (i < s.size()) {
        if (s.compare(i, 4, "True") == 0) {
            out.push_back(true);
            i += 4;
        } else if (s.compare(i, 5, "False") == 0) {
            out.push_back(false);
            i += 5;
        } else {
            ++i;
        }
    }
    return out;
}

// c10::ScalarType numbers as the profiler prints a dtype argument (Concrete Inputs).
int scalarTypeBytes(const std::string& s) {
    auto v = intList(s);
    if (!v || v->size() != 1)
        return 0;
    switch ((*v)[0]) {
        case 0:
        case 1:
        case 11:
        case 12:
        case 13:
        case 23:
        case 24:
        case 25:
        case 26:
            return 1;  // u8, i8, bool, qint8, quint8, the FP8 types
        case 2:
        case 5:
        case 15:
            return 2;  // i16, half, bfloat16
        case 3:
        case 6:
        case 14:
            return 4;  // i32, float, qint32
        case 4:
        case 7:
        case 9:
            return 8;  // i64, double, complex float
        default:
            return 0;
    }
}

Peak tensorPeak(int elementBytes, const std::string& type) {
    if (elementBytes == 1)
        return Peak::Fp8;
    if (elementBytes == 2)
        return Peak::Bf16;
    (void)type;
    return Peak::Fp32Gemm;
}

std::optional<Shape> broadcast(const std::vector<const Shape*>& shapes) {
    size_t rank = 0;
    for (const Shape* s : shapes)
        rank = std::max(rank, s->size());
    Shape out(rank, 1);
    for (const Shape* s : shapes) {
        for (size_t i = 0; i < s->size(); ++i) {
            int64_t& o = out[rank - s->size() + i];
            int64_t v = (*s)[i];
            if (o == 1)
                o = v;
            else if (v != 1 && v != o)
                return std::nullopt;
        }
    }
    return out;
}

// ---- elementwise ---------------------------------------------------------------------------

// Every tensor input (0-d wrapped scalars and empty out= tensors left out) read once, the
// broadcast output written once in the widest input type (bool for comparisons);
// flopsPerElement per output element. With only 0-d inputs, one element each.
std::optional<Work> elementwise(const Args& a, double flopsPerElement, bool boolOut) {
    std::vector<const Shape*> shapes;
    Work w;
    int outBytes = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!isTensor(a, i) || a[i].dims.empty() || numel(a[i].dims) == 0)
            continue;
        shapes.push_back(&a[i].dims);
        w.bytes += tbytes(a, i);
        outBytes = std::max(outBytes, es(a, i));
    }
    if (shapes.empty()) {
        // Only 0-d tensors (a scale computed on the GPU): one element read per input, one
        // written.
        for (size_t i = 0; i < a.size(); ++i) {
            if (isTensor(a, i) && a[i].dims.empty()) {
                w.bytes += es(a, i);
                outBytes = std::max(outBytes, es(a, i));
            }
        }
        if (outBytes == 0)
            return std::nullopt;
        w.bytes += boolOut ? 1 : outBytes;
        w.flops = flopsPerElement;
        return w;
    }
    auto out = broadcast(shapes);
    if (!out)
        return std::nullopt;
    const double n = numel(*out);
    w.bytes += n * (boolOut ? 1 : outBytes);
    w.flops = n * flopsPerElement;
    return w;
}

std::optional<Work> elementwise1(const Args& a, const WorkContext&) {
    return elementwise(a, 1, false);
}
std::optional<Work> compare(const Args& a, const WorkContext&) {
    return elementwise(a, 1, true);
}
// Write only: fill_, zero_.
std::optional<Work> fill(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    return Work{tbytes(a, 0), 0, Peak::Vector};
}
// copy_(self, src): read src, write self (dtype conversions included: .to() lands here).
std::optional<Work> copy(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    return Work{tbytes(a, 0) + tbytes(a, 1), 0, Peak::Vector};
}
// _to_copy(self, dtype, ...) / clone(self): read self, write it in dtype (self's when none).
std::optional<Work> toCopy(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    int out = scalarTypeBytes(concrete(a, 1));
    if (out == 0)
        out = es(a, 0);
    return Work{tbytes(a, 0) + numel(a[0].dims) * out, 0, Peak::Vector};
}
std::optional<Work> clone(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    return Work{2 * tbytes(a, 0), 0, Peak::Vector};
}
// cat(tensors, dim) / stack: every listed tensor read and written once; the element size
// comes from the kernel name (a TensorList has no recorded type).
std::optional<Work> cat(const Args& a, const WorkContext& ctx) {
    if (a.empty() || !a[0].isList || ctx.listElementBytes <= 0)
        return std::nullopt;
    double n = 0;
    for (const Shape& s : a[0].list)
        n += numel(s);
    return Work{2 * n * ctx.listElementBytes, 0, Peak::Vector};
}

// ---- GEMM family ---------------------------------------------------------------------------

Work gemm(double batch, double m, double k, double n, double readBytes, int outBytes, Peak peak) {
    return Work{readBytes + batch * m * n * outBytes, 2 * batch * m * k * n, peak};
}

// mm(A[M,K], B[K,N]) -> C[M,N]
std::optional<Work> mm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0, 2) || !isTensor(a, 1, 2))
        return std::nullopt;
    const auto &A = a[0].dims, &B = a[1].dims;
    return gemm(1, A[0], A[1], B[1], tbytes(a, 0) + tbytes(a, 1), es(a, 0),
                tensorPeak(es(a, 0), a[0].type));
}
// addmm(bias, A[M,K], B[K,N], beta, alpha) -> bias + A B; the bias add is M*N more FLOPs.
std::optional<Work> addmm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 1, 2) || !isTensor(a, 2, 2))
        return std::nullopt;
    const auto &A = a[1].dims, &B = a[2].dims;
    Work w = gemm(1, A[0], A[1], B[1], tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2), es(a, 1),
                  tensorPeak(es(a, 1), a[1].type));
    if (isTensor(a, 0))
        w.flops += double(A[0]) * double(B[1]);
    return w;
}
// bmm(A[b,M,K], B[b,K,N]) -> C[b,M,N]
std::optional<Work> bmm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0, 3) || !isTensor(a, 1, 3))
        return std::nullopt;
    const auto &A = a[0].dims, &B = a[1].dims;
    return gemm(A[0], A[1], A[2], B[2], tbytes(a, 0) + tbytes(a, 1), es(a, 0),
                tensorPeak(es(a, 0), a[0].type));
}
// baddbmm(C0[b,M,N], A[b,M,K], B[b,K,N], beta, alpha)
std::optional<Work> baddbmm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 1, 3) || !isTensor(a, 2, 3))
        return std::nullopt;
    const auto &A = a[1].dims, &B = a[2].dims;
    Work w = gemm(A[0], A[1], A[2], B[2], tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2), es(a, 1),
                  tensorPeak(es(a, 1), a[1].type));
    w.flops += double(A[0]) * double(A[1]) * double(B[2]);
    return w;
}
// linear(x[..., K], W[N, K], bias[N]?) -> [..., N]: M = numel(x) / K.
std::optional<Work> linear(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || a[0].dims.empty() || !isTensor(a, 1, 2))
        return std::nullopt;
    const double k = double(a[0].dims.back());
    if (k <= 0 || a[1].dims[1] != a[0].dims.back())
        return std::nullopt;
    const double m = numel(a[0].dims) / k;
    return gemm(1, m, k, a[1].dims[0], tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2), es(a, 0),
                tensorPeak(es(a, 0), a[0].type));
}
// matmul(A, B): A[..., M, K] x B[K, N] (M = all of A's leading rows) or equal-batch 3-d.
std::optional<Work> matmul(const Args& a, const WorkContext& ctx) {
    if (isTensor(a, 0, 3) && isTensor(a, 1, 3))
        return bmm(a, ctx);
    if (!isTensor(a, 0) || a[0].dims.size() < 2 || !isTensor(a, 1, 2))
        return std::nullopt;
    const double k = double(a[0].dims.back());
    if (a[1].dims[0] != a[0].dims.back() || k <= 0)
        return std::nullopt;
    return gemm(1, numel(a[0].dims) / k, k, a[1].dims[1], tbytes(a, 0) + tbytes(a, 1), es(a, 0),
                tensorPeak(es(a, 0), a[0].type));
}
// _scaled_mm(A[M,K], B[K,N], scale_a, scale_b, bias, scale_result, out_dtype, fast_accum):
// FP8 inputs at the FP8 rate; C in out_dtype (A's type when not given).
std::optional<Work> scaledMm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0, 2) || !isTensor(a, 1, 2))
        return std::nullopt;
    const auto &A = a[0].dims, &B = a[1].dims;
    int out = scalarTypeBytes(concrete(a, 6));
    if (out == 0)
        out = es(a, 0);
    double read = tbytes(a, 0) + tbytes(a, 1);
    for (size_t i = 2; i <= 5; ++i)
        read += tbytes(a, i);
    return gemm(1, A[0], A[1], B[1], read, out, tensorPeak(es(a, 0), a[0].type));
}
// Grouped GEMM with offsets (the MoE layer's experts): A and B as recorded, offs splitting
// the ragged dimension. 2-d A[M,K] x 3-d B[G,K,N] -> [M,N] (ragged M); 2-d A[M,K] x 2-d B[K,N]
// -> [G,M,N] (ragged K: a weight gradient); 3-d x 3-d -> a batched GEMM. FLOPs 2 M K N (x G
// for batched), summed over the groups.
std::optional<Work> groupedMmAt(const Args& a, size_t outDtypeArg, double extraRead) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    const auto &A = a[0].dims, &B = a[1].dims;
    int out = scalarTypeBytes(concrete(a, outDtypeArg));
    if (out == 0)
        out = es(a, 0) == 1 ? 2 : es(a, 0);  // FP8 grouped GEMMs write bf16 by default
    const double read = tbytes(a, 0) + tbytes(a, 1) + extraRead;
    const Peak peak = tensorPeak(es(a, 0), a[0].type);
    if (A.size() == 2 && B.size() == 3 && A[1] == B[1])
        return gemm(1, A[0], A[1], B[2], read, out, peak);
    if (A.size() == 3 && B.size() == 3 && A[0] == B[0] && A[2] == B[1])
        return gemm(A[0], A[1], A[2], B[2], read, out, peak);
    if (A.size() == 2 && B.size() == 2 && A[1] == B[0]) {
        double groups = 0;
        for (size_t i = 2; i < a.size(); ++i) {
            if (isTensor(a, i, 1)) {
                groups = double(a[i].dims[0]);
                break;
            }
        }
        if (groups <= 0)
            return std::nullopt;
        Work w = gemm(1, A[0], A[1], B[1], read, out, peak);
        w.bytes += (groups - 1) * double(A[0]) * double(B[1]) * out;  // one C per group
        return w;
    }
    return std::nullopt;
}
std::optional<Work> groupedMm(const Args& a, const WorkContext&) {
    return groupedMmAt(a, 4, tbytes(a, 2) + tbytes(a, 3));
}
// _scaled_grouped_mm(A, B, scale_a, scale_b, offs, bias, scale_result, out_dtype, fast_accum)
std::optional<Work> scaledGroupedMm(const Args& a, const WorkContext&) {
    double extra = 0;
    for (size_t i = 2; i <= 6; ++i)
        extra += tbytes(a, i);
    return groupedMmAt(a, 7, extra);
}

// ---- convolution ---------------------------------------------------------------------------

struct ConvGeom {
    double n = 0, c = 0, o = 0, groups = 1;
    Shape outSpatial;
    double kernelVolume = 1;
    double forwardFlops() const {
        return 2 * n * o * numel(outSpatial) * (c / groups) * kernelVolume;
    }
};

// Input [N, C, spatial...] and weight [O, C/g, k...] (logical NCHW order, whatever the memory
// format), padding/stride/dilation lists; out = floor((in + 2p - d (k - 1) - 1) / s) + 1.
std::optional<ConvGeom> convGeom(const Args& a, size_t in, size_t wt, const std::string& pad,
                                 const std::string& stride, const std::string& dil, double groups) {
    if (!isTensor(a, in) || !isTensor(a, wt))
        return std::nullopt;
    const Shape &I = a[in].dims, &W = a[wt].dims;
    if (I.size() < 3 || W.size() != I.size())
        return std::nullopt;
    const size_t sd = I.size() - 2;
    auto P = intList(pad), S = intList(stride), D = intList(dil);
    auto at = [&](const std::optional<Shape>& v, size_t i, int64_t dflt) {
        if (!v || v->empty())
            return dflt;
        return v->size() == 1 ? (*v)[0] : (i < v->size() ? (*v)[i] : dflt);
    };
    ConvGeom g;
    g.n = double(I[0]);
    g.c = double(I[1]);
    g.o = double(W[0]);
    g.groups = groups > 0 ? groups : 1;
    for (size_t i = 0; i < sd; ++i) {
        const int64_t k = W[2 + i];
        const int64_t s = at(S, i, 1);
        if (s <= 0)
            return std::nullopt;
        const int64_t o = (I[2 + i] + 2 * at(P, i, 0) - at(D, i, 1) * (k - 1) - 1) / s + 1;
        if (o <= 0)
            return std::nullopt;
        g.outSpatial.push_back(o);
        g.kernelVolume *= double(k);
    }
    return g;
}

Work convForward(const Args& a, const ConvGeom& g, size_t in, size_t wt, size_t bias) {
    Work w;
    w.flops = g.forwardFlops();
    w.bytes = tbytes(a, in) + tbytes(a, wt) + tbytes(a, bias) +
              g.n * g.o * numel(g.outSpatial) * es(a, in);
    w.peak = tensorPeak(es(a, in), a[in].type);
    return w;
}

// cudnn_convolution(input, weight, padding, stride, dilation, groups, benchmark,
// deterministic, allow_tf32) (miopen_convolution has bias at 2 and the same order after it).
std::optional<Work> cudnnConv(const Args& a, const WorkContext&) {
    auto g = convGeom(a, 0, 1, concrete(a, 2), concrete(a, 3), concrete(a, 4),
                      intList(concrete(a, 5)).value_or(Shape{1}).front());
    if (!g)
        return std::nullopt;
    return convForward(a, *g, 0, 1, 99);
}
std::optional<Work> miopenConv(const Args& a, const WorkContext&) {
    auto g = convGeom(a, 0, 1, concrete(a, 3), concrete(a, 4), concrete(a, 5),
                      intList(concrete(a, 6)).value_or(Shape{1}).front());
    if (!g)
        return std::nullopt;
    return convForward(a, *g, 0, 1, 2);
}
// convolution / _convolution(input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, ...): transposed convolutions get no estimate.
std::optional<Work> convolution(const Args& a, const WorkContext&) {
    if (truthy(concrete(a, 6)))
        return std::nullopt;
    auto g = convGeom(a, 0, 1, concrete(a, 4), concrete(a, 3), concrete(a, 5),
                      intList(concrete(a, 8)).value_or(Shape{1}).front());
    if (!g)
        return std::nullopt;
    return convForward(a, *g, 0, 1, 2);
}
// convolution_backward(grad_out, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): grad_input (mask 0: reads grad_out and
// weight, writes input-sized), grad_weight (mask 1: reads grad_out and input, writes
// weight-sized), grad_bias (mask 2: N*O*spatial adds); each GEMM-like part costs the forward's
// FLOPs.
std::optional<Work> convolutionBackward(const Args& a, const WorkContext&) {
    if (truthy(concrete(a, 7)) || !isTensor(a, 0) || !isTensor(a, 1) || !isTensor(a, 2))
        return std::nullopt;
    const Shape &G = a[0].dims, &I = a[1].dims, &W = a[2].dims;
    if (G.size() != I.size() || W.size() != I.size() || I.size() < 3)
        return std::nullopt;
    const double groups = double(intList(concrete(a, 9)).value_or(Shape{1}).front());
    std::vector<bool> mask = boolList(concrete(a, 10));
    mask.resize(3, true);
    Shape outSpatial(G.begin() + 2, G.end());
    double kvol = 1;
    for (size_t i = 2; i < W.size(); ++i)
        kvol *= double(W[i]);
    const double fwd = 2 * double(G[0]) * double(G[1]) * numel(outSpatial) *
                       (double(I[1]) / (groups > 0 ? groups : 1)) * kvol;
    Work w;
    w.bytes = tbytes(a, 0);
    if (mask[0]) {
        w.flops += fwd;
        w.bytes += tbytes(a, 2) + tbytes(a, 1);  // read weight, write grad_input
    }
    if (mask[1]) {
        w.flops += fwd;
        w.bytes += tbytes(a, 1) + tbytes(a, 2);  // read input, write grad_weight
    }
    if (mask[2]) {
        w.flops += numel(G);
        w.bytes += double(G[1]) * es(a, 0);
    }
    w.peak = tensorPeak(es(a, 0), a[0].type);
    return w;
}

// ---- attention -----------------------------------------------------------------------------

// Scaled dot-product attention on q [B, Sq, Hq, D] / k [B, Sk, Hk, D] / v [B, Sk, Hk, Dv]
// (bshd; bhsd for the cuDNN and SDPA-level ops). Query-key pairs: Sq*Sk, causal (bottom-right
// aligned, as flash does) Sq*Sk - Sq(Sq-1)/2 for Sq <= Sk. Forward: 2 pairs (D + Dv) FLOPs per
// head (QK^T and PV); reads q, k, v, writes out and the fp32 logsumexp. Backward: 2 pairs
// (3D + 2Dv) (S recomputed, dV, dP, dQ, dK); reads dout, q, k, v, out, logsumexp, writes dq,
// dk, dv.
std::optional<Work> attention(const Args& a, size_t q, size_t k, size_t v, bool bhsd, bool causal,
                              bool backward, double extraRead) {
    if (!isTensor(a, q, 4) || !isTensor(a, k, 4) || !isTensor(a, v, 4))
        return std::nullopt;
    const Shape &Q = a[q].dims, &K = a[k].dims, &V = a[v].dims;
    const size_t s = bhsd ? 2 : 1, h = bhsd ? 1 : 2;
    const double B = double(Q[0]), Hq = double(Q[h]), Sq = double(Q[s]), Sk = double(K[s]);
    const double D = double(Q[3]), Dv = double(V[3]);
    double pairs = Sq * Sk;
    if (causal)
        pairs = Sq <= Sk ? Sq * Sk - Sq * (Sq - 1) / 2 : Sk * (Sk + 1) / 2;
    const double out = B * Hq * Sq * Dv * es(a, q);
    const double lse = B * Hq * Sq * 4;
    Work w;
    w.peak = tensorPeak(es(a, q), a[q].type);
    if (!backward) {
        w.flops = 2 * B * Hq * pairs * (D + Dv);
        w.bytes = tbytes(a, q) + tbytes(a, k) + tbytes(a, v) + out + lse + extraRead;
    } else {
        w.flops = 2 * B * Hq * pairs * (3 * D + 2 * Dv);
        w.bytes = 2 * (tbytes(a, q) + tbytes(a, k) + tbytes(a, v)) + 2 * out + lse + extraRead;
    }
    return w;
}

#define REACH_ATTENTION(fname, q, k, v, bhsd, causalExpr, backward, extra) \
    std::optional<Work> fname(const Args& a, const WorkContext&) {         \
        return attention(a, q, k, v, bhsd, causalExpr, backward, extra);   \
    }
// _flash_attention_forward(q, k, v, cum_q, cum_k, max_q, max_k, dropout, is_causal, ...)
REACH_ATTENTION(flashFwd, 0, 1, 2, false, truthy(concrete(a, 8)), false, 0)
// _flash_attention_backward(dout, q, k, v, out, lse, cum_q, cum_k, max_q, max_k, dropout,
// is_causal, ...)
REACH_ATTENTION(flashBwd, 1, 2, 3, false, truthy(concrete(a, 11)), true, 0)
// _efficient_attention_forward(q, k, v, bias, cu_q, cu_k, max_q, max_k, dropout,
// custom_mask_type (0 none, 1/2 causal), ...)
REACH_ATTENTION(efficientFwd, 0, 1, 2, false, concrete(a, 9) != "0" && !concrete(a, 9).empty(),
                false, tbytes(a, 3))
// _efficient_attention_backward(dout, q, k, v, bias, out, cu_q, cu_k, max_q, max_k, lse,
// dropout, seed, offset, custom_mask_type, ...)
REACH_ATTENTION(efficientBwd, 1, 2, 3, false, concrete(a, 14) != "0" && !concrete(a, 14).empty(),
                true, tbytes(a, 4))
// _cudnn_attention_forward(q, k, v, bias, cum_q, cum_k, max_q, max_k, compute_lse, dropout,
// is_causal, ...) in bhsd
REACH_ATTENTION(cudnnFwd, 0, 1, 2, true, truthy(concrete(a, 10)), false, tbytes(a, 3))
// _cudnn_attention_backward(dout, q, k, v, out, lse, seed, offset, bias, cum_q, cum_k, max_q,
// max_k, dropout, is_causal, scale) in bhsd; also _scaled_dot_product_cudnn_attention_backward
REACH_ATTENTION(cudnnBwd, 1, 2, 3, true, truthy(concrete(a, 14)), true, tbytes(a, 8))
// _scaled_dot_product_flash_attention(q, k, v, dropout, is_causal, ...) in bhsd
REACH_ATTENTION(sdpaFlashFwd, 0, 1, 2, true, truthy(concrete(a, 4)), false, 0)
// _scaled_dot_product_{efficient,cudnn}_attention(q, k, v, bias, compute_lse, dropout,
// is_causal, ...) in bhsd
REACH_ATTENTION(sdpaFwd, 0, 1, 2, true, truthy(concrete(a, 6)), false, tbytes(a, 3))
// _scaled_dot_product_flash_attention_backward(dout, q, k, v, out, lse, cum_q, cum_k, max_q,
// max_k, dropout, is_causal, ...) in bhsd
REACH_ATTENTION(sdpaFlashBwd, 1, 2, 3, true, truthy(concrete(a, 11)), true, 0)
// _scaled_dot_product_efficient_attention_backward(dout, q, k, v, bias, out, lse, seed,
// offset, dropout, grad_input_mask, is_causal, scale) in bhsd
REACH_ATTENTION(sdpaEfficientBwd, 1, 2, 3, true, truthy(concrete(a, 11)), true, tbytes(a, 4))
#undef REACH_ATTENTION

// ---- reductions, softmax, norms ------------------------------------------------------------

// Reduce over the dims listed at argument dimArg ("[1]", "[-1, -2]", "1"; none or empty: all):
// reads the input once, writes the reduced output (outBytes per element, 0: input's type);
// one FLOP per input element.
std::optional<Work> reduceAt(const Args& a, size_t dimArg, int outBytes) {
    if (!isTensor(a, 0))
        return std::nullopt;
    const Shape& in = a[0].dims;
    const double n = numel(in);
    double kept = 1;
    auto dims = intList(concrete(a, dimArg));
    if (dims && !dims->empty()) {
        std::vector<bool> reduced(in.size(), false);
        for (int64_t d : *dims) {
            const int64_t r = d < 0 ? d + int64_t(in.size()) : d;
            if (r < 0 || r >= int64_t(in.size()))
                return std::nullopt;
            reduced[size_t(r)] = true;
        }
        for (size_t i = 0; i < in.size(); ++i)
            kept *= reduced[i] ? 1.0 : double(in[i]);
    }
    return Work{tbytes(a, 0) + kept * (outBytes ? outBytes : es(a, 0)), n, Peak::Vector};
}
// sum / mean / amax / amin / prod (self, dim, keepdim, ...)
std::optional<Work> reduceDim1(const Args& a, const WorkContext&) {
    return reduceAt(a, 1, 0);
}
// all / any (self[, dim]): bool out
std::optional<Work> reduceBool(const Args& a, const WorkContext&) {
    return reduceAt(a, 1, 1);
}
// argmax / argmin (self, dim, keepdim): int64 out
std::optional<Work> reduceIndex(const Args& a, const WorkContext&) {
    return reduceAt(a, 1, 8);
}
// max / min (self, dim, keepdim): values and int64 indices
std::optional<Work> reduceValueIndex(const Args& a, const WorkContext&) {
    return reduceAt(a, 1, es(a, 0) + 8);
}
// linalg_vector_norm(self, ord, dim, keepdim, dtype) / norm
std::optional<Work> reduceDim2(const Args& a, const WorkContext&) {
    return reduceAt(a, 2, 0);
}

// Row-wise operators that read each tensor input once and write outputs of the first input's
// shape (`outputs` of them, in outBytes per element or the input's type): softmax,
// log-softmax and their backward, cumsum.
std::optional<Work> rowwise(const Args& a, size_t tensors, int outBytes, double flopsPerElement) {
    Work w;
    for (size_t i = 0; i < tensors; ++i) {
        if (!isTensor(a, i))
            return std::nullopt;
        w.bytes += tbytes(a, i);
    }
    const double n = numel(a[0].dims);
    w.bytes += n * (outBytes ? outBytes : es(a, 0));
    w.flops = n * flopsPerElement;
    return w;
}
// _softmax / _log_softmax(self, dim, half_to_float): max, subtract, exp, sum, divide: 5 per
// element (the verifier's count); half_to_float writes fp32.
std::optional<Work> softmax(const Args& a, const WorkContext&) {
    return rowwise(a, 1, truthy(concrete(a, 2)) ? 4 : 0, 5);
}
// _softmax_backward_data / _log_softmax_backward_data(grad_out, output, dim, input_dtype)
std::optional<Work> softmaxBackward(const Args& a, const WorkContext&) {
    return rowwise(a, 2, scalarTypeBytes(concrete(a, 3)), 4);
}
// cumsum(self, dim, dtype)
std::optional<Work> cumsum(const Args& a, const WorkContext&) {
    return rowwise(a, 1, scalarTypeBytes(concrete(a, 2)), 1);
}

// native_layer_norm(input, normalized_shape, weight, bias, eps): reads input, weight, bias,
// writes the output and fp32 mean and rstd per row; 8 FLOPs per element (the verifier's).
std::optional<Work> layerNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    auto ns = intList(concrete(a, 1));
    const double n = numel(a[0].dims);
    const double inner = ns && !ns->empty() ? numel(*ns) : 0;
    if (inner <= 0)
        return std::nullopt;
    const double rows = n / inner;
    return Work{2 * tbytes(a, 0) + tbytes(a, 2) + tbytes(a, 3) + 2 * rows * 4, 8 * n, Peak::Vector};
}
// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask): reads grad_out, input, mean, rstd, weight; writes grad_input and grad_weight,
// grad_bias (as masked); 10 FLOPs per element.
std::optional<Work> layerNormBackward(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    std::vector<bool> mask = boolList(concrete(a, 7));
    mask.resize(3, true);
    Work w;
    w.bytes = tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 3) + tbytes(a, 4) + tbytes(a, 5);
    if (mask[0])
        w.bytes += tbytes(a, 1);
    if (mask[1])
        w.bytes += tbytes(a, 5);
    if (mask[2])
        w.bytes += tbytes(a, 6) > 0 ? tbytes(a, 6) : tbytes(a, 5);
    w.flops = 10 * numel(a[0].dims);
    return w;
}
// _fused_rms_norm(input, normalized_shape, weight, eps): reads input and weight, writes the
// output and an fp32 rstd per row; 4 FLOPs per element.
std::optional<Work> rmsNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    auto ns = intList(concrete(a, 1));
    const double n = numel(a[0].dims);
    const double inner = ns && !ns->empty() ? numel(*ns) : double(a[0].dims.back());
    if (inner <= 0)
        return std::nullopt;
    return Work{2 * tbytes(a, 0) + tbytes(a, 2) + n / inner * 4, 4 * n, Peak::Vector};
}
// native_batch_norm / cudnn_batch_norm / miopen_batch_norm(input, weight, bias, running_mean,
// running_var, training, momentum, eps): reads the input once and the four per-channel
// vectors, writes the output (and, training, the saved mean and invstd and the updated running
// stats); 4 FLOPs per element (training: 7, the statistics too).
std::optional<Work> batchNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0))
        return std::nullopt;
    const bool training = truthy(concrete(a, 5));
    double vec = 0;
    for (size_t i = 1; i <= 4; ++i)
        vec += tbytes(a, i);
    const double c = a[0].dims.size() > 1 ? double(a[0].dims[1]) : 1;
    Work w{2 * tbytes(a, 0) + vec, (training ? 7 : 4) * numel(a[0].dims), Peak::Vector};
    if (training)
        w.bytes += vec / 2 + 2 * c * 4;
    return w;
}
// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
// save_invstd, train, eps, output_mask): reads grad_out and input, writes grad_input (and
// per-channel grads); 8 FLOPs per element.
std::optional<Work> batchNormBackward(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    double vec = 0;
    for (size_t i = 2; i <= 6; ++i)
        vec += tbytes(a, i);
    return Work{tbytes(a, 0) + 2 * tbytes(a, 1) + vec, 8 * numel(a[0].dims), Peak::Vector};
}
// native_group_norm(input, weight, bias, N, C, HxW, group, eps): reads input, weight, bias,
// writes the output and fp32 mean/rstd per (N, group); 8 FLOPs per element.
std::optional<Work> groupNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || a[0].dims.empty())
        return std::nullopt;
    const double g = double(intList(concrete(a, 6)).value_or(Shape{1}).front());
    const double n = double(a[0].dims[0]);
    return Work{2 * tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2) + 2 * n * g * 4,
                8 * numel(a[0].dims), Peak::Vector};
}
// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, mask)
std::optional<Work> groupNormBackward(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    return Work{tbytes(a, 0) + 2 * tbytes(a, 1) + tbytes(a, 2) + tbytes(a, 3) + 3 * tbytes(a, 4),
                10 * numel(a[0].dims), Peak::Vector};
}

// ---- pooling -------------------------------------------------------------------------------

// max_pool2d_with_indices(self, kernel, stride, padding, dilation, ceil_mode) /
// avg_pool2d(self, kernel, stride, padding, ceil_mode, ...): reads the input, writes the
// pooled output (max: and int64 indices); one FLOP per window element.
std::optional<Work> poolAt(const Args& a, bool indices, bool hasDilation) {
    if (!isTensor(a, 0) || a[0].dims.size() < 3)
        return std::nullopt;
    const Shape& I = a[0].dims;
    auto K = intList(concrete(a, 1)), S = intList(concrete(a, 2)), P = intList(concrete(a, 3));
    auto D = hasDilation ? intList(concrete(a, 4)) : std::nullopt;
    const bool ceil = truthy(concrete(a, hasDilation ? 5 : 4));
    if (!K || K->empty())
        return std::nullopt;
    const size_t sd = 2;
    if (I.size() < sd + 1)
        return std::nullopt;
    auto at = [](const std::optional<Shape>& v, size_t i, int64_t dflt) {
        if (!v || v->empty())
            return dflt;
        return v->size() == 1 ? (*v)[0] : (*v)[std::min(i, v->size() - 1)];
    };
    double outN = numel(Shape(I.begin(), I.end() - sd));
    double window = 1;
    for (size_t i = 0; i < sd; ++i) {
        const int64_t k = at(K, i, 1), s = at(S, i, k), p = at(P, i, 0), d = at(D, i, 1);
        const int64_t in = I[I.size() - sd + i];
        const int64_t span = in + 2 * p - d * (k - 1) - 1;
        if (s <= 0)
            return std::nullopt;
        int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
        if (ceil && (o - 1) * s >= in + p)
            --o;
        if (o <= 0)
            return std::nullopt;
        outN *= double(o);
        window *= double(k);
    }
    return Work{tbytes(a, 0) + outN * (es(a, 0) + (indices ? 8 : 0)), outN * window, Peak::Vector};
}
std::optional<Work> maxPool(const Args& a, const WorkContext&) {
    return poolAt(a, true, true);
}
std::optional<Work> avgPool(const Args& a, const WorkContext&) {
    return poolAt(a, false, false);
}
// _adaptive_avg_pool2d(self, output_size): reads the input, writes N*C*oh*ow.
std::optional<Work> adaptiveAvgPool(const Args& a, const WorkContext&) {
    auto o = intList(concrete(a, 1));
    if (!isTensor(a, 0) || !o || o->empty() || a[0].dims.size() < 3)
        return std::nullopt;
    const Shape& I = a[0].dims;
    double out = numel(Shape(I.begin(), I.end() - 2)) * numel(*o);
    return Work{tbytes(a, 0) + out * es(a, 0), numel(I), Peak::Vector};
}

// ---- embedding, index, gather, scatter -----------------------------------------------------

// _embedding_bag / _embedding_bag_forward_only(weight[V,D], indices[L], offsets[B],
// scale_grad, mode, sparse, per_sample_weights, include_last_offset, padding_idx): each lookup
// reads its row (L*D elements; repeated rows hitting L2 are not assumed), the indices,
// offsets and per-sample weights; writes B bags of D (B = offsets - 1 with include_last_offset)
// and the int64 offset2bag (L) and bag_size (B); one FLOP per gathered element.
std::optional<Work> embeddingBag(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0, 2) || !isTensor(a, 1) || !isTensor(a, 2, 1))
        return std::nullopt;
    const double L = numel(a[1].dims), D = double(a[0].dims[1]);
    double B = double(a[2].dims[0]);
    if (truthy(concrete(a, 7)))
        B -= 1;
    const double row = D * es(a, 0);
    Work w;
    w.bytes = L * row + tbytes(a, 1) + tbytes(a, 2) + tbytes(a, 6) + B * row + (L + B) * 8;
    w.flops = L * D;
    return w;
}
// embedding(weight[V,D], indices, padding_idx, ...) and index_select(self, dim, index):
// out = index count x the selected slice; reads the gathered slices and the index, writes out.
std::optional<Work> embedding(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0, 2) || !isTensor(a, 1))
        return std::nullopt;
    const double out = numel(a[1].dims) * double(a[0].dims[1]) * es(a, 0);
    return Work{2 * out + tbytes(a, 1), 0, Peak::Vector};
}
std::optional<Work> indexSelect(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 2) || a[0].dims.empty())
        return std::nullopt;
    auto dim = intList(concrete(a, 1));
    int64_t d = dim && dim->size() == 1 ? (*dim)[0] : 0;
    if (d < 0)
        d += int64_t(a[0].dims.size());
    if (d < 0 || d >= int64_t(a[0].dims.size()) || a[0].dims[size_t(d)] <= 0)
        return std::nullopt;
    const double slice = numel(a[0].dims) / double(a[0].dims[size_t(d)]);
    const double out = numel(a[2].dims) * slice * es(a, 0);
    return Work{2 * out + tbytes(a, 2), 0, Peak::Vector};
}
// embedding_dense_backward(grad_out, indices, num_weights, padding_idx, scale): reads the
// gradient and indices, writes the whole [num_weights, D] gradient; one add per element.
std::optional<Work> embeddingBackward(const Args& a, const WorkContext&) {
    auto v = intList(concrete(a, 2));
    if (!isTensor(a, 0) || a[0].dims.empty() || !isTensor(a, 1) || !v || v->size() != 1)
        return std::nullopt;
    const double D = double(a[0].dims.back());
    return Work{tbytes(a, 0) + tbytes(a, 1) + double((*v)[0]) * D * es(a, 0), numel(a[0].dims),
                Peak::Vector};
}
// gather(self, dim, index, sparse_grad): out has the index's shape: reads index and gathered
// elements, writes out.
std::optional<Work> gather(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 2))
        return std::nullopt;
    const double out = numel(a[2].dims) * es(a, 0);
    return Work{2 * out + tbytes(a, 2), 0, Peak::Vector};
}
// scatter(self, dim, index, src) / scatter_add: reads index and src, writes as many elements
// (scatter_add also reads them: read-modify-write); out-of-place variants copy self first
// (a copy_ of its own, counted there).
std::optional<Work> scatterAt(const Args& a, bool accumulate) {
    if (!isTensor(a, 0) || !isTensor(a, 2))
        return std::nullopt;
    const double n = numel(a[2].dims) * es(a, 0);
    return Work{tbytes(a, 2) + (isTensor(a, 3) ? tbytes(a, 3) : 0) + n * (accumulate ? 2 : 1),
                accumulate ? numel(a[2].dims) : 0, Peak::Vector};
}
std::optional<Work> scatter(const Args& a, const WorkContext&) {
    return scatterAt(a, false);
}
std::optional<Work> scatterAdd(const Args& a, const WorkContext&) {
    return scatterAt(a, true);
}
// index_add_(self, dim, index, source, alpha) / index_copy_(self, dim, index, source): reads
// index and source, writes source-many elements of self (index_add_ reads them too).
std::optional<Work> indexAddAt(const Args& a, bool accumulate) {
    if (!isTensor(a, 0) || !isTensor(a, 2) || !isTensor(a, 3))
        return std::nullopt;
    const double n = tbytes(a, 3);
    return Work{tbytes(a, 2) + n + n * (accumulate ? 2 : 1), accumulate ? numel(a[3].dims) : 0,
                Peak::Vector};
}
std::optional<Work> indexAdd(const Args& a, const WorkContext&) {
    return indexAddAt(a, true);
}
std::optional<Work> indexCopy(const Args& a, const WorkContext&) {
    return indexAddAt(a, false);
}

// ---- kernels torch.compile generated ---------------------------------------------------------

// An Inductor kernel's launch is recorded as a cpu_op named after the kernel (triton_poi_/red_/
// per_ + the fused ops + a number) whose inputs are the kernel's buffers, then its sizes as
// Scalars (xnumel; r0_numel for a reduction). A buffer can be far larger than what the kernel
// touches (a fused select or slice reads one row of it: counting buffers put kernels at 146 % of
// their roofline), so the bound comes from the iteration space instead: a pointwise kernel stores
// at least one element per x index, a reduction loads at least one element per (x, r) index and
// stores one per x, each at least as large as the smallest element type among its buffers. A
// lower bound, with no FLOPs counted: a kernel's fraction of speed of light is never overstated.
std::optional<Work> inductorKernelAt(const Args& a, bool reduction) {
    int es = 0;
    std::vector<double> numels;
    for (size_t i = 0; i < a.size(); ++i) {
        if (isTensor(a, i)) {
            const int b = dtypeBytes(a[i].type);
            es = es == 0 ? b : std::min(es, b);
        } else if (a[i].type == "Scalar" && !a[i].concrete.empty()) {
            int64_t v = 0;
            const std::string& c = a[i].concrete;
            auto r = std::from_chars(c.data(), c.data() + c.size(), v);
            if (r.ec == std::errc() && r.ptr == c.data() + c.size() && v > 0)
                numels.push_back(double(v));
        }
    }
    if (es == 0 || numels.size() < (reduction ? 2u : 1u))
        return std::nullopt;
    const double x = numels[0];
    const double bytes = reduction ? (x * numels[1] + x) * es : x * es;
    return Work{bytes, 0, Peak::Vector};
}
std::optional<Work> inductorPointwise(const Args& a, const WorkContext&) {
    return inductorKernelAt(a, false);
}
std::optional<Work> inductorReduction(const Args& a, const WorkContext&) {
    return inductorKernelAt(a, true);
}

// ---- optimizer -----------------------------------------------------------------------------

double listElements(const CallArg& a) {
    double n = 0;
    for (const Shape& s : a.list)
        n += numel(s);
    return n;
}
// _foreach_<op>_(self list, other lists/scalars): reads every TensorList argument, writes the
// first (in place) or a new list (out of place); one FLOP per element per list read.
std::optional<Work> foreachAt(const Args& a, const WorkContext& ctx, bool copyOnly) {
    if (a.empty() || !a[0].isList || ctx.listElementBytes <= 0)
        return std::nullopt;
    const double n = listElements(a[0]);
    double lists = 0;
    for (size_t i = copyOnly ? 1 : 0; i < a.size(); ++i) {
        if (a[i].isList && !a[i].list.empty())
            lists += 1;
    }
    return Work{(lists + 1) * n * ctx.listElementBytes, copyOnly ? 0 : lists * n, Peak::Vector};
}
std::optional<Work> foreachOp(const Args& a, const WorkContext& ctx) {
    return foreachAt(a, ctx, false);
}
std::optional<Work> foreachCopy(const Args& a, const WorkContext& ctx) {
    return foreachAt(a, ctx, true);
}
// _foreach_norm(tensors, ord): reads every tensor, writes one value per tensor.
std::optional<Work> foreachNorm(const Args& a, const WorkContext& ctx) {
    if (a.empty() || !a[0].isList || ctx.listElementBytes <= 0)
        return std::nullopt;
    const double n = listElements(a[0]);
    return Work{n * ctx.listElementBytes + double(a[0].list.size()) * 4, 2 * n, Peak::Vector};
}
// _fused_adam_ / _fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
// state_steps, lr, ...): reads params, grads, both moments (and max_exp_avg_sqs with amsgrad),
// writes params and both moments: 7 (9) x numel x element size; 16 FLOPs per element.
std::optional<Work> fusedAdam(const Args& a, const WorkContext& ctx) {
    if (a.size() < 4 || !a[0].isList || ctx.listElementBytes <= 0)
        return std::nullopt;
    const double n = listElements(a[0]);
    const bool ams = a.size() > 4 && a[4].isList && !a[4].list.empty();
    return Work{(ams ? 9 : 7) * n * ctx.listElementBytes, 16 * n, Peak::Vector};
}

// ---- the table -----------------------------------------------------------------------------

constexpr std::string_view kElementwiseFormula =
    "reads every tensor input once (0-d wrapped scalars and empty out= tensors left out), writes "
    "the broadcast output once in the widest input type; 1 FLOP per output element";
constexpr std::string_view kCompareFormula =
    "as elementwise, the output is bool (1 byte per element)";

std::vector<WorkEntry> buildTable() {
    std::vector<WorkEntry> t = {
        {"aten::mm", "gemm", "A[M,K] B[K,N]: bytes A + B + C[M,N]; FLOPs 2MKN", mm},
        {"aten::addmm", "gemm", "bias + A[M,K] B[K,N]: bytes bias + A + B + C; FLOPs 2MKN + MN",
         addmm},
        {"aten::bmm", "gemm", "A[b,M,K] B[b,K,N]: bytes A + B + C[b,M,N]; FLOPs 2bMKN", bmm},
        {"aten::baddbmm", "gemm", "C0 + A B (batched): bytes C0 + A + B + C; FLOPs 2bMKN + bMN",
         baddbmm},
        {"aten::linear", "gemm", "x[...,K] W[N,K]^T + bias: M = numel(x)/K; FLOPs 2MKN", linear},
        {"aten::matmul", "gemm", "A[...,M,K] B[K,N] (or 3-d x 3-d): as mm/bmm", matmul},
        {"aten::_scaled_mm", "gemm",
         "FP8 A[M,K] B[K,N] with scales: bytes A + B + scales + bias + C (out_dtype); FLOPs 2MKN "
         "at "
         "the FP8 rate",
         scaledMm},
        {"aten::_grouped_mm", "gemm",
         "grouped GEMM with offsets: A[M,K] x B[G,K,N] -> [M,N], A[M,K] x B[K,N] -> [G,M,N] "
         "(ragged "
         "K), A[G,M,K] x B[G,K,N] -> [G,M,N]; FLOPs 2MKN (x G batched)",
         groupedMm},
        {"aten::_scaled_grouped_mm", "gemm", "as _grouped_mm, FP8 inputs with scales",
         scaledGroupedMm},
        {"aten::cudnn_convolution", "conv",
         "input[N,C,...] weight[O,C/g,k...]: out = floor((in + 2p - d(k-1) - 1)/s) + 1; bytes "
         "input "
         "+ weight + output; FLOPs 2 N O prod(out) (C/g) prod(k)",
         cudnnConv},
        {"aten::miopen_convolution", "conv", "as cudnn_convolution (bias at argument 2)",
         miopenConv},
        {"aten::convolution", "conv", "as cudnn_convolution (+ bias); transposed: no estimate",
         convolution},
        {"aten::_convolution", "conv", "as convolution", convolution},
        {"aten::convolution_backward", "conv",
         "per output_mask: grad_input (reads grad_out, weight; writes input-sized), grad_weight "
         "(reads grad_out, input; writes weight-sized): the forward's FLOPs each; grad_bias N O "
         "prod(out) adds",
         convolutionBackward},
        {"aten::_flash_attention_forward", "attention",
         "q,k,v [B,S,H,D]: pairs Sq Sk (causal Sq Sk - Sq(Sq-1)/2); FLOPs 2 B H pairs (D + Dv); "
         "bytes q + k + v + out + fp32 logsumexp",
         flashFwd},
        {"aten::_flash_attention_backward", "attention",
         "FLOPs 2 B H pairs (3D + 2Dv); bytes dout, q, k, v, out, logsumexp read, dq, dk, dv "
         "written",
         flashBwd},
        {"aten::_efficient_attention_forward", "attention",
         "as flash forward (+ bias), custom_mask_type != 0 is causal", efficientFwd},
        {"aten::_efficient_attention_backward", "attention", "as flash backward (+ bias)",
         efficientBwd},
        {"aten::_cudnn_attention_forward", "attention", "as flash forward, [B,H,S,D]", cudnnFwd},
        {"aten::_cudnn_attention_backward", "attention", "as flash backward, [B,H,S,D]", cudnnBwd},
        {"aten::_scaled_dot_product_flash_attention", "attention", "as flash forward, [B,H,S,D]",
         sdpaFlashFwd},
        {"aten::_scaled_dot_product_efficient_attention", "attention",
         "as flash forward, [B,H,S,D]", sdpaFwd},
        {"aten::_scaled_dot_product_cudnn_attention", "attention", "as flash forward, [B,H,S,D]",
         sdpaFwd},
        {"aten::_scaled_dot_product_flash_attention_backward", "attention",
         "as flash backward, [B,H,S,D]", sdpaFlashBwd},
        {"aten::_scaled_dot_product_efficient_attention_backward", "attention",
         "as flash backward, [B,H,S,D]", sdpaEfficientBwd},
        {"aten::_scaled_dot_product_cudnn_attention_backward", "attention",
         "as flash backward, [B,H,S,D]", cudnnBwd},
        {"aten::_softmax", "softmax",
         "reads x, writes y (fp32 with half_to_float); 5 FLOPs per element", softmax},
        {"aten::_log_softmax", "softmax", "as _softmax", softmax},
        {"aten::_softmax_backward_data", "softmax",
         "reads grad and output, writes grad_input; 4 FLOPs per element", softmaxBackward},
        {"aten::_log_softmax_backward_data", "softmax", "as _softmax_backward_data",
         softmaxBackward},
        {"aten::native_layer_norm", "norm",
         "reads x, weight, bias; writes y and fp32 mean, rstd per row; 8 FLOPs per element",
         layerNorm},
        {"aten::native_layer_norm_backward", "norm",
         "reads grad, x, mean, rstd, weight; writes grad_x, grad_weight, grad_bias (as masked); 10 "
         "FLOPs per element",
         layerNormBackward},
        {"aten::_fused_rms_norm", "norm",
         "reads x, weight; writes y and fp32 rstd per row; 4 FLOPs per element", rmsNorm},
        {"aten::native_batch_norm", "norm",
         "reads x once and the per-channel vectors, writes y (training: also saved mean/invstd and "
         "running stats); 4 FLOPs per element (training 7)",
         batchNorm},
        {"aten::cudnn_batch_norm", "norm", "as native_batch_norm", batchNorm},
        {"aten::miopen_batch_norm", "norm", "as native_batch_norm", batchNorm},
        {"aten::_native_batch_norm_legit", "norm", "as native_batch_norm", batchNorm},
        {"aten::_native_batch_norm_legit_no_training", "norm", "as native_batch_norm", batchNorm},
        {"aten::native_batch_norm_backward", "norm",
         "reads grad and x, writes grad_x and per-channel grads; 8 FLOPs per element",
         batchNormBackward},
        {"aten::native_group_norm", "norm",
         "reads x, weight, bias; writes y and fp32 mean, rstd per (N, group); 8 FLOPs per element",
         groupNorm},
        {"aten::native_group_norm_backward", "norm",
         "reads grad, x, mean, rstd, weight; writes grad_x; 10 FLOPs per element",
         groupNormBackward},
        {"aten::sum", "reduction",
         "reads x once, writes the reduced output (dims at argument 1, none: all); 1 FLOP per "
         "input element",
         reduceDim1},
        {"aten::mean", "reduction", "as sum", reduceDim1},
        {"aten::amax", "reduction", "as sum", reduceDim1},
        {"aten::amin", "reduction", "as sum", reduceDim1},
        {"aten::prod", "reduction", "as sum", reduceDim1},
        {"aten::logsumexp", "reduction", "as sum", reduceDim1},
        {"aten::std", "reduction", "as sum", reduceDim1},
        {"aten::var", "reduction", "as sum", reduceDim1},
        {"aten::all", "reduction", "as sum, bool output", reduceBool},
        {"aten::any", "reduction", "as sum, bool output", reduceBool},
        {"aten::argmax", "reduction", "as sum, int64 output", reduceIndex},
        {"aten::argmin", "reduction", "as sum, int64 output", reduceIndex},
        {"aten::max", "reduction", "as sum, values and int64 indices", reduceValueIndex},
        {"aten::min", "reduction", "as sum, values and int64 indices", reduceValueIndex},
        {"aten::linalg_vector_norm", "reduction", "as sum, dims at argument 2", reduceDim2},
        {"aten::norm", "reduction", "as sum, dims at argument 2", reduceDim2},
        {"aten::cumsum", "reduction", "reads x, writes a same-shape output; 1 FLOP per element",
         cumsum},
        {"aten::max_pool2d_with_indices", "pool",
         "reads x, writes the pooled output and int64 indices; 1 FLOP per window element", maxPool},
        {"aten::avg_pool2d", "pool", "reads x, writes the pooled output; 1 FLOP per window element",
         avgPool},
        {"aten::_adaptive_avg_pool2d", "pool",
         "reads x, writes N C oh ow; 1 FLOP per input element", adaptiveAvgPool},
        {"aten::adaptive_avg_pool2d", "pool", "as _adaptive_avg_pool2d", adaptiveAvgPool},
        {"aten::_embedding_bag", "embedding",
         "weight[V,D], indices[L], offsets[B]: reads L rows of D (no L2 reuse of repeated rows "
         "assumed), indices, offsets, per-sample weights; writes B x D and int64 offset2bag (L), "
         "bag_size (B); 1 FLOP per gathered element",
         embeddingBag},
        {"aten::_embedding_bag_forward_only", "embedding", "as _embedding_bag", embeddingBag},
        {"aten::embedding", "embedding",
         "weight[V,D], indices: reads and writes numel(indices) x D, reads the indices", embedding},
        {"aten::index_select", "embedding",
         "self, dim, index: reads and writes numel(index) slices of self, reads the index",
         indexSelect},
        {"aten::embedding_dense_backward", "embedding",
         "reads grad and indices, writes the whole [num_weights, D] gradient; 1 FLOP per grad "
         "element",
         embeddingBackward},
        {"aten::gather", "index", "out has the index's shape: reads index and gathered, writes out",
         gather},
        {"aten::scatter", "index", "reads index and src, writes as many elements of self", scatter},
        {"aten::scatter_", "index", "as scatter", scatter},
        {"aten::scatter_add", "index", "as scatter, read-modify-write", scatterAdd},
        {"aten::scatter_add_", "index", "as scatter_add", scatterAdd},
        {"aten::index_add_", "index",
         "reads index and source, read-modify-writes source-many elements of self", indexAdd},
        {"aten::index_copy_", "index", "reads index and source, writes source-many elements",
         indexCopy},
        {"aten::copy_", "copy", "reads src, writes self (dtype conversions included)", copy},
        {"aten::_to_copy", "copy", "reads self, writes it in the target dtype", toCopy},
        {"aten::clone", "copy", "reads and writes self", clone},
        {"aten::cat", "copy",
         "reads and writes every listed tensor once; element size from the kernel name", cat},
        {"aten::stack", "copy", "as cat", cat},
        {"aten::fill_", "elementwise", "writes self", fill},
        {"aten::zero_", "elementwise", "writes self", fill},
        {"aten::_fused_adam_", "optimizer",
         "reads params, grads, exp_avg, exp_avg_sq (+ max_exp_avg_sq), writes params and both "
         "moments: 7 (9) x numel x element size; 16 FLOPs per element",
         fusedAdam},
        {"aten::_fused_adamw_", "optimizer", "as _fused_adam_", fusedAdam},
        {"aten::_foreach_copy_", "optimizer", "reads src list, writes self list", foreachCopy},
        {"aten::_foreach_norm", "optimizer", "reads every tensor, writes one fp32 per tensor",
         foreachNorm},
    };
    // Elementwise operators, functional and in-place (the same work: the in-place output is
    // self, read and written once). The table keeps views into these names.
    static std::vector<std::string> elementwiseNames;
    static std::vector<std::string> compareNames;
    if (elementwiseNames.empty()) {
        for (std::string_view name : {"add",
                                      "sub",
                                      "mul",
                                      "div",
                                      "rsub",
                                      "maximum",
                                      "minimum",
                                      "pow",
                                      "remainder",
                                      "fmod",
                                      "floor_divide",
                                      "where",
                                      "masked_fill",
                                      "lerp",
                                      "addcmul",
                                      "addcdiv",
                                      "abs",
                                      "neg",
                                      "exp",
                                      "exp2",
                                      "log",
                                      "log1p",
                                      "log2",
                                      "sqrt",
                                      "rsqrt",
                                      "reciprocal",
                                      "sigmoid",
                                      "tanh",
                                      "relu",
                                      "gelu",
                                      "silu",
                                      "mish",
                                      "elu",
                                      "leaky_relu",
                                      "hardtanh",
                                      "hardswish",
                                      "hardsigmoid",
                                      "clamp",
                                      "clamp_min",
                                      "clamp_max",
                                      "threshold",
                                      "sign",
                                      "erf",
                                      "sin",
                                      "cos",
                                      "floor",
                                      "ceil",
                                      "round",
                                      "trunc",
                                      "square",
                                      "logical_not",
                                      "bitwise_and",
                                      "bitwise_or",
                                      "bitwise_not",
                                      "gelu_backward",
                                      "silu_backward",
                                      "threshold_backward",
                                      "sigmoid_backward",
                                      "tanh_backward",
                                      "hardtanh_backward",
                                      "mish_backward",
                                      "nan_to_num",
                                      "xlogy",
                                      "atan2",
                                      "sgn"}) {
            elementwiseNames.push_back("aten::" + std::string(name));
            elementwiseNames.push_back("aten::" + std::string(name) + "_");
        }
        for (std::string_view name :
             {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "logical_and", "logical_or"}) {
            compareNames.push_back("aten::" + std::string(name));
            compareNames.push_back("aten::" + std::string(name) + "_");
        }
        for (std::string_view name :
             {"add", "sub", "mul", "div", "addcmul", "addcdiv", "lerp", "sqrt", "neg", "exp",
              "maximum", "clamp_min", "clamp_max", "sign", "abs", "reciprocal", "pow", "zero"}) {
            elementwiseNames.push_back("foreach:" + std::string(name));
        }
    }
    for (const std::string& n : elementwiseNames) {
        if (n.rfind("foreach:", 0) == 0)
            continue;
        t.push_back({n, "elementwise", kElementwiseFormula, elementwise1});
    }
    for (const std::string& n : compareNames)
        t.push_back({n, "elementwise", kCompareFormula, compare});
    static std::vector<std::string> foreachNames;
    if (foreachNames.empty()) {
        for (const std::string& n : elementwiseNames) {
            if (n.rfind("foreach:", 0) != 0)
                continue;
            const std::string op = n.substr(8);
            foreachNames.push_back("aten::_foreach_" + op);
            foreachNames.push_back("aten::_foreach_" + op + "_");
        }
    }
    for (const std::string& n : foreachNames) {
        t.push_back(
            {n, "optimizer",
             "reads every TensorList argument, writes self (in place) or a new list; 1 FLOP "
             "per element per list read; element size from the kernel name",
             foreachOp});
    }
    std::sort(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.op < y.op; });
    t.erase(
        std::unique(t.begin(), t.end(), [](const auto& x, const auto& y) { return x.op == y.op; }),
        t.end());
    return t;
}

}  // namespace

int dtypeBytes(std::string_view t) {
    const ProfilerDtype* d = profilerDtype(t);
    return d ? d->bytes : 0;
}

int elementBytesFromKernelName(std::string_view k) {
    const auto opaque = k.find("OpaqueType<");
    if (opaque != std::string_view::npos) {
        int v = 0;
        const char* p = k.data() + opaque + 11;
        auto r = std::from_chars(p, k.data() + k.size(), v);
        if (r.ec == std::errc() && v > 0)
            return v;
    }
    // The first element type among the template arguments: the earliest of these tokens.
    static const std::pair<std::string_view, int> kTokens[] = {
        {"c10::BFloat16", 2}, {"c10::Half", 2}, {"__nv_bfloat16", 2},
        {"<float", 4},        {" float,", 4},   {"(float", 4},
        {"<double", 8},       {" double,", 8},  {"c10::Float8_e4m3fn", 1},
    };
    size_t best = std::string_view::npos;
    int bytes = 0;
    for (const auto& [tok, b] : kTokens) {
        const auto at = k.find(tok);
        if (at < best) {
            best = at;
            bytes = b;
        }
    }
    return bytes;
}

const std::vector<WorkEntry>& workTable() {
    static const std::vector<WorkEntry> kTable = buildTable();
    return kTable;
}

const std::vector<WorkEntry>& inductorEntries() {
    // Matched by prefix: each compiled program names its kernels anew (fused ops, a number).
    // Template kernels (triton_tem_, GEMMs Inductor wrote) are not here: their FLOPs matter and
    // their buffers do not say the GEMM's shape.
    static const std::vector<WorkEntry> kEntries = {
        {"triton_poi_*", "inductor",
         "Inductor pointwise kernel: xnumel elements stored, at the smallest element size of its "
         "buffers (a lower bound); FLOPs not counted",
         inductorPointwise},
        {"triton_red_*", "inductor",
         "Inductor reduction: xnumel x r0_numel elements loaded + xnumel stored, at the smallest "
         "element size of its buffers (a lower bound); FLOPs not counted",
         inductorReduction},
        {"triton_per_*", "inductor",
         "Inductor persistent reduction: as triton_red_* (a lower bound); FLOPs not counted",
         inductorReduction},
    };
    return kEntries;
}

namespace {

// Serving stacks' operators (core/base/servingoperators.h): every stack's schema of a family
// puts the same tensors at the same places, so one formula per family.
// rms_norm(out, x, w, eps): reads x and w, writes out; 4 FLOPs per element.
std::optional<Work> servingRmsNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;  // the weight may be None (vLLM's newest): no bytes
    return Work{tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2), 4 * numel(a[1].dims), Peak::Vector};
}
// fused_add_rms_norm(x!, residual!, w, eps): reads x, residual and w, writes both; 5 FLOPs per
// element (the add too).
std::optional<Work> servingFusedAddRmsNorm(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    return Work{2 * (tbytes(a, 0) + tbytes(a, 1)) + tbytes(a, 2), 5 * numel(a[0].dims),
                Peak::Vector};
}
// act_and_mul(out, x): reads x [.., 2d], writes out [.., d]; 4 FLOPs per output element (the
// activation and the product).
std::optional<Work> servingActAndMul(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    return Work{tbytes(a, 0) + tbytes(a, 1), 4 * numel(a[0].dims), Peak::Vector};
}
// rotary_embedding(positions, q!, k!?, head_size, cache[P, rot], is_neox): reads the positions
// and one cache row per position, reads and writes q and k; 3 FLOPs per rotated element (rot
// of each head_size).
std::optional<Work> servingRotary(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1) || !isTensor(a, 4, 2))
        return std::nullopt;
    const auto head = intList(concrete(a, 3));
    const double rot = double(a[4].dims[1]);
    if (!head || head->size() != 1 || (*head)[0] < rot || rot < 2)
        return std::nullopt;
    const double positions = numel(a[0].dims);
    const double qk = numel(a[1].dims) + (isTensor(a, 2) ? numel(a[2].dims) : 0);
    return Work{tbytes(a, 0) + positions * rot * es(a, 4) + 2 * (tbytes(a, 1) + tbytes(a, 2)),
                3 * qk * rot / double((*head)[0]), Peak::Vector};
}
// static_scaled_fp8_quant(out fp8, x, scale): reads x and the scale, writes one byte per
// element; 2 FLOPs per element (the scaling and the clamp).
std::optional<Work> servingFp8Quant(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1))
        return std::nullopt;
    return Work{tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 2), 2 * numel(a[1].dims), Peak::Vector};
}

// reshape_and_cache[_flash](key, value, key_cache!, value_cache!, slot_mapping, ...): reads key,
// value and the slots, writes as many elements into each cache (in the cache's dtype: FP8 caches
// take one byte); no FLOPs (an FP8 cache's scaling aside).
std::optional<Work> servingKvCacheWrite(const Args& a, const WorkContext&) {
    if (!isTensor(a, 0) || !isTensor(a, 1) || !isTensor(a, 2) || !isTensor(a, 3))
        return std::nullopt;
    const double k = numel(a[0].dims), v = numel(a[1].dims);
    return Work{tbytes(a, 0) + tbytes(a, 1) + tbytes(a, 4) + k * es(a, 2) + v * es(a, 3), 0,
                Peak::Vector};
}

WorkEntry servingEntry(const ServingOperator& s) {
    using F = ServingFamily;
    switch (s.family) {
        case F::RmsNorm:
        case F::GemmaRmsNorm:
            return {s.name, "norm", "reads x, weight; writes out; 4 FLOPs per element",
                    servingRmsNorm};
        case F::FusedAddRmsNorm:
        case F::GemmaFusedAddRmsNorm:
            return {s.name, "norm",
                    "reads x, residual, weight; writes x and residual; 5 FLOPs per element",
                    servingFusedAddRmsNorm};
        case F::SiluAndMul:
        case F::GeluAndMul:
        case F::GeluTanhAndMul:
            return {s.name, "elementwise",
                    "reads x [.., 2d], writes out [.., d]; 4 FLOPs per output element",
                    servingActAndMul};
        case F::RotaryEmbedding:
            return {
                s.name, "elementwise",
                "reads positions and one cache row each, reads and writes query and key; 3 FLOPs "
                "per rotated element",
                servingRotary};
        case F::StaticScaledFp8Quant:
            return {s.name, "elementwise",
                    "reads x and the scale, writes FP8 (1 byte per element); 2 FLOPs per element",
                    servingFp8Quant};
        case F::KvCacheWrite:
            return {s.name, "copy",
                    "reads key, value and the slots, writes as many elements into each cache (in "
                    "its dtype); no FLOPs",
                    servingKvCacheWrite};
    }
    return {s.name, "", "", nullptr};
}

}  // namespace

const std::vector<WorkEntry>& servingEntries() {
    static const std::vector<WorkEntry> kEntries = [] {
        std::vector<WorkEntry> out;
        for (const ServingOperator& s : servingOperators())
            out.push_back(servingEntry(s));
        return out;
    }();
    return kEntries;
}

const WorkEntry* findWorkEntry(std::string_view op) {
    const auto& t = workTable();
    auto it = std::lower_bound(t.begin(), t.end(), op,
                               [](const WorkEntry& e, std::string_view v) { return e.op < v; });
    if (it != t.end() && it->op == op)
        return &*it;
    if (const ServingOperator* serving = servingOperator(op)) {
        const auto& entries = servingEntries();
        return &entries[size_t(serving - servingOperators().data())];
    }
    for (const WorkEntry& e : inductorEntries()) {
        const std::string_view prefix = e.op.substr(0, e.op.size() - 1);  // without the '*'
        if (op.size() > prefix.size() && op.substr(0, prefix.size()) == prefix)
            return &e;
    }
    return nullptr;
}

std::optional<Work> operatorWork(std::string_view op, const std::vector<CallArg>& args,
                                 const WorkContext& ctx) {
    const WorkEntry* e = findWorkEntry(op);
    if (!e)
        return std::nullopt;
    auto w = e->work(args, ctx);
    if (w && (!(w->bytes >= 0) || !(w->flops >= 0) || (w->bytes == 0 && w->flops == 0)))
        return std::nullopt;
    return w;
}

}  // namespace reach
