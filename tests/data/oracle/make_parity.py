#!/usr/bin/env python3
"""Writes parity.json: the same arrays for Reach's two oracles (core/verify/oracle.cpp with the
operators' invariants in C++, resources/python/reach_kb/oracle.py and invariants.py in Python) and
the numbers docs/verifier.md says both must give, computed here a third way (plain float64 Python,
no PyTorch), so neither implementation is the other's reference.

Each case: an operator ("softmax", "log_softmax", "layernorm", "rmsnorm", "sum_rows", "relu"),
the output's precision ("f32" or "bf16"), the input x as [rows, cols], the float64 reference, the
candidate's output (values on the precision's grid; null where the candidate never wrote), and
`expect`: rel_frobenius, norm_max_error, written_fraction, non_finite, kernelbench_allclose,
zeros_pass_kernelbench and each invariant's value and limit. JSON has no NaN or Inf: they are the
strings "nan", "inf", "-inf" wherever a number may be one.

  python3 tests/data/oracle/make_parity.py   (rewrites parity.json beside it)
"""
import json
import math
import os
import struct

KB_TOL = {"f32": 1e-4, "bf16": 1e-2}  # resources/oracle/thresholds.json, kernelbench_tolerance


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bf16(x):
    """Round to nearest even on the float32's bits, as PyTorch's and Reach's conversion do."""
    if math.isnan(x) or math.isinf(x):
        return x
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def grid(dtype, x):
    return f32(x) if dtype == "f32" else bf16(x)


def softmax_rows(x):
    out = []
    for row in x:
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = sum(e)
        out.append([v / s for v in e])
    return out


def log_softmax_rows(x):
    out = []
    for row in x:
        m = max(row)
        lse = m + math.log(sum(math.exp(v - m) for v in row))
        out.append([v - lse for v in row])
    return out


def layernorm_rows(x, eps=1e-5):
    out = []
    for row in x:
        mu = sum(row) / len(row)
        var = sum((v - mu) ** 2 for v in row) / len(row)
        out.append([(v - mu) / math.sqrt(var + eps) for v in row])
    return out


def rmsnorm_rows(x, eps=1e-6):
    out = []
    for row in x:
        ms = sum(v * v for v in row) / len(row)
        out.append([v / math.sqrt(ms + eps) for v in row])
    return out


def metrics(dtype, ref, out):
    """docs/verifier.md: unwritten counts as 0; NaN/Inf written where the reference is finite
    makes both norms NaN; where the reference is not finite the output must be the same value and
    those elements stay out of the norms."""
    tol = KB_TOL[dtype]
    err_sq = ref_sq = max_err = max_ref = 0.0
    written = bad = 0
    kb_ok = zeros_ok = True
    for r, o in zip(ref, out):
        x = 0.0 if o is None else o
        written += o is not None
        rk = grid(dtype, r)
        # KernelBench: torch.allclose(ref, out): |ref - out| <= atol + rtol * |out|
        if not abs(rk - x) <= tol + tol * abs(x):
            kb_ok = False
        if not abs(rk) <= tol:
            zeros_ok = False
        if not math.isfinite(r):
            if not ((math.isnan(r) and math.isnan(x)) or r == x):
                bad += 1
            continue
        if not math.isfinite(x):
            bad += 1
            continue
        err_sq += (x - r) ** 2
        ref_sq += r * r
        max_err = max(max_err, abs(x - r))
        max_ref = max(max_ref, abs(r))
    if bad:
        rel = nmax = math.nan
    else:
        rel = math.sqrt(err_sq) / math.sqrt(ref_sq) if ref_sq > 0 else (0.0 if err_sq == 0 else math.inf)
        nmax = max_err / max_ref if max_ref > 0 else (0.0 if max_err == 0 else math.inf)
    return {"rel_frobenius": rel, "norm_max_error": nmax, "written_fraction": written / len(ref),
            "non_finite": bad, "kernelbench_allclose": kb_ok, "zeros_pass_kernelbench": zeros_ok}


def nan_if_none(v):
    return math.nan if v is None else v


def maxabs(vs):
    return math.nan if any(math.isnan(v) for v in vs) else max(abs(v) for v in vs)


def invariants(op, x, ref_rows, out_rows):
    """The values of docs/verifier.md's invariants (out: NaN where unwritten). layernorm and
    rmsnorm are at their init (weight 1, bias 0), where the reference's row statistics are the
    formulas' (var(x)/(var(x)+eps), ms(x)/(ms(x)+eps))."""
    y = [[nan_if_none(v) for v in row] for row in out_rows]
    flat = [v for row in y for v in row]
    if op == "softmax":
        rng = math.nan if any(math.isnan(v) for v in flat) else max(
            [0.0] + [-v for v in flat] + [v - 1 for v in flat])
        return {"row_sum": maxabs([sum(row) - 1 for row in y]), "range": rng}
    if op == "log_softmax":
        def lse(row):
            if any(math.isnan(v) for v in row):
                return math.nan
            m = max(row)
            return m + math.log(sum(math.exp(v - m) for v in row))
        return {"row_logsumexp": maxabs([lse(row) for row in y])}
    if op == "layernorm":
        def var(row):
            mu = sum(row) / len(row)
            return sum((v - mu) ** 2 for v in row) / len(row)
        return {"row_mean": maxabs([sum(row) / len(row) for row in y]),
                "row_variance": maxabs([var(a) - var(b) for a, b in zip(y, ref_rows)])}
    if op == "rmsnorm":
        def rms(row):
            return math.sqrt(sum(v * v for v in row) / len(row))
        return {"row_rms": maxabs([rms(a) - rms(b) for a, b in zip(y, ref_rows)])}
    if op == "sum_rows":
        sx = sum(v for row in x for v in row)
        sabs = sum(abs(v) for row in x for v in row)
        return {"total_sum": abs(sum(flat) - sx) / sabs}
    if op == "relu":
        # Over the elements whose reference is finite (a NaN input's NaN is right, and a wrong
        # value there is the non_finite check's); NaN where it is finite (never written) fails.
        pairs = [(o, r) for orow, rrow in zip(y, ref_rows) for o, r in zip(orow, rrow)
                 if math.isfinite(r)]
        m = max([0.0] + [abs(r) for _, r in pairs])
        neg = math.nan if any(math.isnan(o) for o, _ in pairs) else max([0.0] + [-o for o, _ in pairs])
        return {"non_negative": neg / m if m > 0 else neg}
    raise ValueError(op)


def enc(v):
    """JSON has no NaN or Inf: they are written as the strings "nan", "inf", "-inf"."""
    if v is None or math.isfinite(v):
        return v
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def case(name, op, dtype, x, out_fn, why):
    if op == "softmax":
        ref = softmax_rows(x)
    elif op == "log_softmax":
        ref = log_softmax_rows(x)
    elif op == "layernorm":
        ref = layernorm_rows(x)
    elif op == "rmsnorm":
        ref = rmsnorm_rows(x)
    elif op == "sum_rows":
        ref = [[sum(row)] for row in x]
    elif op == "relu":
        ref = [[v if math.isnan(v) else max(v, 0.0) for v in row] for row in x]
    out = out_fn(ref)
    out = [[None if v is None else grid(dtype, v) for v in row] for row in out]
    flat_ref = [v for row in ref for v in row]
    flat_out = [v for row in out for v in row]
    expect = metrics(dtype, flat_ref, flat_out)
    # Each invariant's value and its limit: the precision's `invariant` threshold, or 0 where the
    # property is exact whatever the precision (relu never returns a negative number).
    expect["invariants"] = {k: {"value": enc(v), "threshold": 0.0 if k == "non_negative" else "invariant"}
                            for k, v in invariants(op, x, ref, out).items()}
    rows = lambda m: [[enc(v) for v in row] for row in m]  # noqa: E731
    return {"name": name, "why": why, "op": op, "dtype": dtype, "x": rows(x), "reference": rows(ref),
            "output": rows(out), "expect": {k: enc(v) if isinstance(v, float) else v
                                            for k, v in expect.items()}}


def main():
    x = [[0.25, -1.5, 2.0, 0.75, -0.125, 1.0], [3.0, 0.5, -2.25, 0.0, 1.25, -0.5],
         [-1.0, -0.75, 0.5, 2.5, 0.125, -3.0]]
    same = lambda ref: [list(row) for row in ref]  # noqa: E731 (the precision's rounding only)
    cases = [
        case("softmax_f32_correct", "softmax", "f32", x, same, "a correct output: f32 rounding only"),
        case("softmax_bf16_correct", "softmax", "bf16", x, same, "a correct output: bf16 rounding only"),
        case("softmax_bf16_rows_sum_to_two", "softmax", "bf16", x,
             lambda ref: [[2 * v for v in row] for row in ref],
             "every row twice the reference: the chunked softmax's kind of error"),
        case("softmax_f32_half_written", "softmax", "f32", x,
             lambda ref: [[v if c % 2 == 0 else None for c, v in enumerate(row)] for row in ref],
             "every other element never written: counted as 0, invariants NaN"),
        case("softmax_f32_one_nan", "softmax", "f32", x,
             lambda ref: [[math.nan if (r, c) == (1, 2) else v for c, v in enumerate(row)]
                          for r, row in enumerate(ref)],
             "one NaN written: both norms NaN"),
        case("softmax_bf16_zeros", "softmax", "bf16", [[0.0] * 200, [1.0] * 200], lambda ref:
             [[0.0] * len(row) for row in ref],
             "all zeros on rows of 200: every reference element 0.005 <= 1e-2, so KernelBench's "
             "allclose passes zeros"),
        case("log_softmax_f32_shifted", "log_softmax", "f32", x,
             lambda ref: [[v + 0.01 for v in row] for row in ref],
             "every element 0.01 off: logsumexp 0.01"),
        case("layernorm_f32_scaled", "layernorm", "f32", x,
             lambda ref: [[1.1 * v for v in row] for row in ref],
             "10 % too large: the variance off by 0.21 of the reference's"),
        case("rmsnorm_bf16_correct", "rmsnorm", "bf16", x, same, "bf16 rounding only"),
        case("sum_rows_f32_drops_last", "sum_rows", "f32", x,
             lambda ref: [[v - xr[-1]] for (v,), xr in zip(ref, x)],
             "each row's last element left out of its sum"),
        case("relu_f32_negative", "relu", "f32", x,
             lambda ref: [[-0.5 if (r, c) == (0, 1) else v for c, v in enumerate(row)]
                          for r, row in enumerate(ref)],
             "one negative output: relu never returns one"),
        case("relu_f32_nan_reference_matched", "relu", "f32", [[math.nan, 1.0], [-0.5, 2.0]], same,
             "the reference is NaN where the input is: the same NaN is right and stays out of "
             "the norms"),
        case("relu_f32_nan_reference_missed", "relu", "f32", [[math.nan, 1.0], [-0.5, 2.0]],
             lambda ref: [[0.0 if math.isnan(v) else v for v in row] for row in ref],
             "a 0 where the reference is NaN: not the same value, both norms NaN"),
        case("relu_f32_all_zero_reference", "relu", "f32", [[-1.0, -2.0], [-0.5, -3.0]], same,
             "a zero reference matched exactly: both norms 0, not NaN"),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parity.json")
    with open(path, "w") as f:
        json.dump({"about": __doc__.strip().split("\n\n")[0], "kernelbench_tolerance": KB_TOL,
                   "cases": cases}, f, indent=1)
        f.write("\n")
    print(len(cases), "cases ->", path)


if __name__ == "__main__":
    main()
