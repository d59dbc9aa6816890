#include "core/verify/oracle.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "core/base/parallel.h"

namespace reach {

bool isSentinel(const HostTensor& t, int64_t i) {
    size_t es = dtypeSize(t.spec.dtype);
    const uint8_t* p = t.bytes.data() + size_t(i) * es;
    for (size_t k = 0; k < es; ++k)
        if (p[k] != kSentinelByte)
            return false;
    return true;
}

void fillSentinel(HostTensor& t) {
    std::fill(t.bytes.begin(), t.bytes.end(), kSentinelByte);
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Accumulates the error sums of one chunk; merged after the parallel loop.
struct Acc {
    double errSq = 0, refSq = 0, maxErr = 0, maxRef = 0;
    int64_t written = 0, nonFinite = 0, kbFail = 0, zerosFail = 0;
    bool errNaN = false;
};

// x rounded to fp16 (round to nearest even, as the GPU's conversion; past 65504 it is inf),
// without _Float16, which clang 14 lacks on x86: fp16 spacing is 2^(e-11) for |x| in
// [2^(e-1), 2^e), and 2^-24 below the smallest normal 2^-14.
double roundToF16(double x) {
    const float f = float(x);
    if (!std::isfinite(f))
        return f;
    const double a = std::fabs(double(f));
    if (a >= 65520.0)
        return std::copysign(std::numeric_limits<double>::infinity(), double(f));
    int e = 0;
    std::frexp(a, &e);
    const double q = a < 0x1p-14 ? 0x1p-24 : std::ldexp(1.0, e - 11);
    return std::nearbyint(double(f) / q) * q;
}

// A value as KernelBench's check holds it: in the output's precision.
double atPrecision(DType d, double x) {
    switch (d) {
        case DType::BF16:
            return double(roundToBf16(float(x)));
        case DType::F16:
            return roundToF16(x);
        default:
            return double(float(x));
    }
}

std::string fmt(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

void addCheck(OracleVerdict& v, std::string name, double value, double threshold, bool passed,
              std::string detail) {
    if (!passed)
        v.reasons.push_back(name + ": " + detail);
    v.checks.push_back({std::move(name), value, threshold, passed, std::move(detail)});
}

// One element into the sums: KernelBench's view of it, then Reach's (docs/verifier.md).
void accumulate(Acc& a, double r, bool written, double x, DType dtype, double kbTol) {
    // KernelBench's view: fresh allocations read as zeros, values in the output's precision,
    // torch.allclose(ref, out): |ref - out| <= atol + rtol * |out|.
    const double xk = written ? atPrecision(dtype, x) : 0.0;
    const double rk = atPrecision(dtype, r);
    if (!(std::fabs(xk - rk) <= kbTol + kbTol * std::fabs(xk)))
        ++a.kbFail;
    if (!(std::fabs(rk) <= kbTol))
        ++a.zerosFail;
    if (!std::isfinite(r)) {
        // A reference that is not finite (sqrt of a negative): the output must be the same
        // value there, and the element stays out of the norms.
        a.written += written;
        if (!((std::isnan(r) && std::isnan(xk)) || r == xk)) {
            ++a.nonFinite;
            a.errNaN = true;
        }
        return;
    }
    a.refSq += r * r;
    a.maxRef = std::max(a.maxRef, std::fabs(r));
    if (!written) {
        // Unwritten counts as 0 in the error (its own check reports it).
        a.errSq += r * r;
        a.maxErr = std::max(a.maxErr, std::fabs(r));
        return;
    }
    ++a.written;
    if (!std::isfinite(x)) {
        ++a.nonFinite;
        a.errNaN = true;
        return;
    }
    const double d = x - r;
    a.errSq += d * d;
    a.maxErr = std::max(a.maxErr, std::fabs(d));
}

void merge(Acc& total, const Acc& a) {
    total.errSq += a.errSq;
    total.refSq += a.refSq;
    total.maxErr = std::max(total.maxErr, a.maxErr);
    total.maxRef = std::max(total.maxRef, a.maxRef);
    total.written += a.written;
    total.nonFinite += a.nonFinite;
    total.kbFail += a.kbFail;
    total.zerosFail += a.zerosFail;
    total.errNaN = total.errNaN || a.errNaN;
}

// One output against its reference, in parallel chunks; `asDoubles` gets the output as doubles
// (NaN where unwritten), which the invariants read.
Acc compareOutput(const HostTensor& out, const std::vector<double>& ref,
                  std::vector<double>& asDoubles) {
    const int64_t n = out.numel();
    asDoubles.resize(size_t(n));
    const double kbTol = kernelBenchTolerance(out.spec.dtype);
    std::vector<Acc> parts;
    std::mutex mu;
    parallelFor(n, [&](int64_t b, int64_t e) {
        Acc local;
        for (int64_t i = b; i < e; ++i) {
            const bool written = !isSentinel(out, i);
            const double x = written ? out.at(i) : kNaN;
            asDoubles[size_t(i)] = x;
            accumulate(local, ref[size_t(i)], written, x, out.spec.dtype, kbTol);
        }
        std::lock_guard<std::mutex> lock(mu);
        parts.push_back(local);
    });
    Acc total;
    for (const Acc& a : parts)
        merge(total, a);
    return total;
}

}  // namespace

OracleVerdict evaluateOutputs(const OracleInput& in) {
    OracleVerdict v;
    OracleMetrics& m = v.metrics;
    const Thresholds& t = in.thresholds;
    const auto& outs = *in.outputs;

    Acc total;
    std::vector<std::vector<double>> outD(outs.size());  // outputs as doubles, NaN if unwritten
    for (size_t o = 0; o < outs.size(); ++o) {
        merge(total, compareOutput(outs[o], (*in.reference)[o], outD[o]));
        m.totalCount += outs[o].numel();
    }

    m.writtenCount = total.written;
    m.writtenFraction = m.totalCount ? double(total.written) / double(m.totalCount) : 0;
    m.nonFinite = total.nonFinite;
    m.maxAbsReference = total.maxRef;
    // A zero reference matched exactly is right (0), missed is infinitely wrong; never 0/0.
    auto ratio = [](double err, double ref) {
        return ref > 0 ? err / ref : (err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    };
    m.relFrobenius = total.errNaN ? kNaN : ratio(std::sqrt(total.errSq), std::sqrt(total.refSq));
    m.normMaxError = total.errNaN ? kNaN : ratio(total.maxErr, total.maxRef);
    m.kernelbenchAllclose = total.kbFail == 0;
    m.zerosPassKernelbench = total.zerosFail == 0;
    m.canaryBytesChanged = in.canaryBytesChanged;

    if (in.inputsAfter) {
        for (size_t k = 0; k < in.inputs->size(); ++k)
            if ((*in.inputsAfter)[k].bytes != (*in.inputs)[k].bytes)
                m.inputsUnchanged = false;
    }

    addCheck(v, "written_fraction", m.writtenFraction, t.writtenFraction,
             m.writtenFraction >= t.writtenFraction,
             fmt(m.writtenFraction) + " of " + std::to_string(m.totalCount) +
                 " output elements written (need >= " + fmt(t.writtenFraction) + ")");
    addCheck(v, "non_finite", double(m.nonFinite), 0, m.nonFinite == 0,
             std::to_string(m.nonFinite) +
                 " written elements are NaN or Inf where the reference is finite (or differ "
                 "where it is not)");
    addCheck(v, "canaries", double(m.canaryBytesChanged), 0, m.canaryBytesChanged == 0,
             std::to_string(m.canaryBytesChanged) +
                 " bytes changed in the canary regions around the outputs (out-of-bounds write)");
    addCheck(v, "inputs_unchanged", m.inputsUnchanged ? 0 : 1, 0, m.inputsUnchanged,
             m.inputsUnchanged ? "inputs unchanged" : "the candidate modified an input");
    addCheck(
        v, "rel_frobenius", m.relFrobenius, t.relFrobenius, m.relFrobenius <= t.relFrobenius,
        "||out-ref||/||ref|| = " + fmt(m.relFrobenius) + " (limit " + fmt(t.relFrobenius) + ")");
    addCheck(
        v, "norm_max_error", m.normMaxError, t.normMaxError, m.normMaxError <= t.normMaxError,
        "max|out-ref|/max|ref| = " + fmt(m.normMaxError) + " (limit " + fmt(t.normMaxError) + ")");

    for (const auto& inv : in.op->invariants(*in.problem, *in.inputs, outD, t)) {
        bool ok = inv.value <= inv.threshold;  // NaN fails
        CheckResult c{
            "invariant:" + inv.name, inv.value, inv.threshold, ok,
            inv.description + " = " + fmt(inv.value) + " (limit " + fmt(inv.threshold) + ")"};
        m.invariants.push_back(c);
        if (!ok)
            v.reasons.push_back(c.name + ": " + c.detail);
        v.checks.push_back(c);
    }
    v.passed = v.reasons.empty();
    return v;
}

}  // namespace reach
