"""Operation invariants by problem category (categories.csv, column `op`).

A KernelBench problem does not say along which axis its softmax or norm works, so the axis is found
from the float64 reference on the first run (the one where the property holds exactly, or, for
RMS, where it varies least) and reused for every later run. Each invariant is a check
`invariant:<name>` against the precision's `invariant` threshold; names follow docs/verifier.md.

- softmax: `row_sum` max|sum(y) - 1| along the axis; `range` excursion outside [0, 1]
- log_softmax: `row_logsumexp` max|logsumexp(y)| along the axis
- layernorm: `row_mean` max|mean(y)|, `row_variance` max|var(y) - var(ref)| over the normalized
  dims; only while every weight is 1 and every bias 0 (the module at its init), else skipped
- rmsnorm: `row_rms` max|rms(y) - rms(ref)| along the axis, same condition on the weights
- l2_norm: `row_norm` max|norm(y) - norm(ref)| along the axis; frobenius_norm: `total_norm`
- reduction_sum: `total_sum` |sum(y) - sum(x)| / sum|x| (x: the largest floating input)
- relu: `non_negative` max(0, -min(y)) / max|ref| over the elements whose reference is finite,
  with a limit of 0 in every precision (max(x, 0) is never negative)
The candidate's output enters as the judge holds it: the slot itself (float32 or float64; a
half-precision output in float32), where an element never written still holds the all-ones
pattern, a NaN: an output that was not written cannot satisfy an invariant. Reductions run in the
output's own float type (PyTorch sums float32 pairwise: ~1e-6 relative over a 400k-element row, far
below every invariant threshold); nothing of the output's size is copied (a dtype= argument would
copy it: +12 GB on a 6 GB output, the memory bound of docs/kernelbench.md).
"""

import math

import torch

from .report import check, fmt

EXACT = 1e-6  # a float64 reference meets its identity to ~1e-12
FLOAT32_EXACT = 1e-4  # a reference held (or computed) in float32 meets it to ~1e-6
RMS_SPREAD = 1e-3


def _axis_sets(ndim):
    sets = [(d,) for d in range(ndim)]
    sets += [tuple(range(ndim - k, ndim)) for k in range(2, ndim + 1)]
    return sets


def _maxabs(t):
    """max|t| without a temporary of t's size (NaN when t holds one)."""
    if not t.numel():
        return 0.0
    return max(float(t.max().item()), -float(t.min().item()))


def _rms(t, axes):
    """sqrt(mean(t^2)) along axes, with no temporary of t's size."""
    n = 1
    for d in axes:
        n *= t.shape[d]
    return torch.linalg.vector_norm(t, dim=axes) / math.sqrt(max(n, 1))


def _params_at_init(model):
    """(True, None) when every weight is 1 and every bias 0; else (False, why)."""
    if model is None:
        return True, None
    for name, p in model.named_parameters():
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "weight" and not bool(torch.all(p == 1).item()):
            return False, f"parameter {name} is not all ones"
        if leaf == "bias" and not bool(torch.all(p == 0).item()):
            return False, f"parameter {name} is not all zeros"
        if leaf not in ("weight", "bias"):
            return False, f"parameter {name} is neither a weight nor a bias"
    return True, None


class Invariants:
    NEEDS_AXES = {"softmax", "log_softmax", "layernorm", "rmsnorm", "l2_norm"}

    def __init__(self, op, ref_model, notes, exact=EXACT):
        self.op = op
        self.notes = notes
        self.exact = exact
        self.axes = None
        self.disabled = None
        if op in ("layernorm", "rmsnorm"):
            ok, why = _params_at_init(ref_model)
            if not ok:
                self.disabled = f"invariants of {op} skipped: {why} (not at its init)"
                notes.append(self.disabled)

    @property
    def active(self):
        return self.op in self.NEEDS_AXES | {"frobenius_norm", "reduction_sum", "relu"} and not self.disabled

    def _find_axes(self, ref):
        """The fewest dims along which the reference has the property (closest on a tie). The
        reference may be held as float32 (large outputs): it is then allowed float32's rounding
        (PyTorch's float32 reductions sum pairwise, ~1e-6 over a 400k-element row)."""
        exact = self.exact if ref.dtype == torch.float64 else FLOAT32_EXACT
        limit = RMS_SPREAD if self.op == "rmsnorm" else exact
        best = None
        for axes in _axis_sets(ref.dim()):
            if self.op == "softmax":
                dev = _maxabs(ref.sum(dim=axes) - 1)
            elif self.op == "log_softmax":
                dev = _maxabs(torch.logsumexp(ref, dim=axes))
            elif self.op == "layernorm":
                dev = _maxabs(ref.mean(dim=axes)) / max(1.0, _maxabs(ref))
            elif self.op == "l2_norm":
                dev = _maxabs(torch.linalg.vector_norm(ref, dim=axes) - 1)
            else:  # rmsnorm: how much the rows' RMS varies (one row says nothing)
                r = _rms(ref, axes)
                if r.numel() < 2 or abs(float(r.mean().item()) - 1) > 0.5:
                    continue
                dev = float((r.max() - r.min()).item())
            if not dev <= limit:
                continue
            key = (len(axes), dev)
            if best is None or key < best[0]:
                best = (key, axes)
        return best[1] if best else None

    def evaluate(self, out64, ref64, inputs64, threshold):
        """Checks for one run (empty when the category has none or the axis is unknown).
        `ref64` is the reference as the judge holds it (float64, or float32 for large outputs);
        `inputs64` a callable giving the inputs as the candidate had them (reduction_sum)."""
        if not self.active:
            return []
        if self.op in self.NEEDS_AXES:
            if self.axes is None:
                self.axes = self._find_axes(ref64)
                if self.axes is None:
                    self.disabled = (f"invariants of {self.op} skipped: no axis along which the "
                                     f"reference has the property")
                    self.notes.append(self.disabled)
                    return []
                self.notes.append(f"{self.op} invariants along dim {list(self.axes)} (found from the reference)")
        a = self.axes
        where = f"along dim {list(a)}" if a else ""
        out = []

        def add(name, value, what):
            value = float(value)
            ok = value <= threshold  # NaN fails
            out.append(check("invariant:" + name, value, threshold, ok,
                             f"{what} = {fmt(value)} (limit {fmt(threshold)})"))

        op = self.op
        if op == "softmax":
            add("row_sum", _maxabs(out64.sum(dim=a) - 1), f"max|sum(y) - 1| {where}")
            excursion = max(0.0, -float(out64.min().item()), float(out64.max().item()) - 1)
            if math.isnan(float(out64.sum().item())):
                excursion = math.nan
            add("range", excursion, "excursion outside [0, 1]")
        elif op == "log_softmax":
            add("row_logsumexp", _maxabs(torch.logsumexp(out64, dim=a)), f"max|logsumexp(y)| {where}")
        elif op == "layernorm":
            add("row_mean", _maxabs(out64.mean(dim=a)), f"max|mean(y)| {where}")
            var_o = out64.var(dim=a, unbiased=False)
            var_r = ref64.var(dim=a, unbiased=False)
            add("row_variance", _maxabs(var_o - var_r), f"max|var(y) - var(ref)| {where}")
        elif op == "rmsnorm":
            add("row_rms", _maxabs(_rms(out64, a) - _rms(ref64, a)), f"max|rms(y) - rms(ref)| {where}")
        elif op == "l2_norm":
            vn = torch.linalg.vector_norm
            add("row_norm", _maxabs(vn(out64, dim=a) - vn(ref64, dim=a)),
                f"max|norm(y) - norm(ref)| {where}")
        elif op == "frobenius_norm":
            vn = torch.linalg.vector_norm
            add("total_norm", abs(float(vn(out64).item()) - float(vn(ref64).item())),
                "| ||y|| - ||ref|| |")
        elif op == "reduction_sum":
            xs = [x for x in inputs64() if isinstance(x, torch.Tensor) and x.is_floating_point()]
            if not xs:
                return out
            x = max(xs, key=lambda t: t.numel())
            denom = float(torch.linalg.vector_norm(x, ord=1).item())
            value = abs(float(out64.sum().item()) - float(x.sum().item())) / denom if denom > 0 else math.nan
            add("total_sum", value, "|sum(y) - sum(x)| / sum|x|")
        elif op == "relu":
            neg, m = _relu_excursion(out64, ref64)
            # Exact whatever the precision: max(x, 0) is never negative (core/verify's Relu: 0).
            value = neg / m if m > 0 else neg
            out.append(check("invariant:non_negative", value, 0.0, value <= 0.0,
                             f"max(0, -min(y)) / max|ref| = {fmt(value)} (limit 0)"))
        return out


def _relu_excursion(y, ref):
    """(largest negative output, max|ref|) over the elements whose reference is finite (a NaN
    input's NaN is right there, and a wrong value there is the non_finite check's); NaN when an
    output is NaN where the reference is finite (never written). In chunks: no temporary of the
    output's size (19_ReLU's is 6 GB)."""
    yf, rf = y.reshape(-1), ref.reshape(-1)
    neg = m = 0.0
    for s in range(0, yf.numel(), 1 << 24):
        yc, rc = yf[s:s + (1 << 24)], rf[s:s + (1 << 24)]
        fin = torch.isfinite(rc)
        if not bool(fin.all().item()):
            yc, rc = yc[fin], rc[fin]
        if not yc.numel():
            continue
        if bool(torch.isnan(yc).any().item()):
            return math.nan, _maxabs(rc)
        neg = max(neg, -float(yc.min().item()))
        m = max(m, _maxabs(rc))
    return neg, m
