"""What the judge checks of one call, in its own memory: the bytes in the slot, its inputs, canaries.

A correctness run (one seed and scale): the judge draws the inputs into the shared regions,
hashes them (judgeinputs.Checksum), computes the float64 reference, fills a fresh slot with the
pattern and asks the runner for one call. Then, from its own memory only:
- the slot against the reference: rel_frobenius, norm_max_error, non_finite (oracle.py);
- written_fraction: slot elements still holding the pattern (the runner pattern-fills its
  allocator before the call, so an element the kernel never wrote arrives as the pattern);
- inputs_unchanged: the inputs' keyed hash after the call equals the one before;
- canaries: bytes around every input and around the slot;
- the operator's invariants on the slot (invariants.py).
What the runner says of its output (its type, shape, dtype, storage shared with an input) is
checked too, as claims: a lying runner escapes those checks only, never the values.
"""

import math

from . import oracle
from .report import check, fmt, run_label
from .tensors import bits


def new_run(seed, variant):
    return {"seed": seed, "scale": variant.scale, "scale_label": variant.label, "variant": variant.kind,
            "rel_frobenius": None,
            "norm_max_error": None, "max_abs_reference": None, "written_fraction": None,
            "written_measured": False, "non_finite": None, "inputs_unchanged": None,
            "aliases_input": None, "kernelbench_allclose": None, "zeros_pass_kernelbench": None,
            "shape": None, "dtype": None, "invariants": [], "error": None,
            "canary_bytes_changed": None}


def add(checks, where, name, value, threshold, passed, detail, reason=None):
    c = check(name, value, threshold, passed, detail)
    c["where"] = where
    if not passed:
        c["reason"] = reason or f"{name}: {fmt(value)} > {fmt(threshold)} at {where}"
    checks.append(c)
    return c


def le(v, limit):
    return v is not None and not (isinstance(v, float) and math.isnan(v)) and v <= limit


def pattern_mask(torch, t):
    """True where every byte of the element is the fill pattern (all bits set)."""
    b = bits(t)
    if b.dtype == torch.uint8:
        return b == 0xFF
    return b == -1


def claims(checks, run, reply, expected_shape, expected_dtype, where, reference_aliases):
    """The runner's word on its output. Returns False when the run cannot go on."""
    run["shape"] = reply.get("shape")
    run["dtype"] = reply.get("dtype")
    if reply.get("type") != "Tensor" or not reply.get("exact_tensor"):
        t = reply.get("type")
        what = (f"a {t} (a subclass of torch.Tensor)" if t and t != "Tensor" and reply.get("shape") is not None
                else f"a {t}" if t else "nothing")
        add(checks, where, "output_type", 1, 0, False, f"returned {what}",
            f"output_type: expected exactly a torch.Tensor, got {what} at {where}")
        if reply.get("shape") is None:
            return False
    if reply.get("shape") != list(expected_shape):
        add(checks, where, "shape", 1, 0, False, f"expected {list(expected_shape)}, got {reply.get('shape')}",
            f"shape: expected {list(expected_shape)}, got {reply.get('shape')} at {where}")
        return False
    add(checks, where, "shape", 0, 0, True, f"{list(expected_shape)}")
    want = str(expected_dtype).replace("torch.", "")
    ok = reply.get("dtype") == want
    add(checks, where, "dtype", 0 if ok else 1, 0, ok, f"expected {want}, got {reply.get('dtype')}",
        f"dtype: expected {want}, got {reply.get('dtype')} at {where}")
    if not ok:
        return False
    aliased = reply.get("aliases") or []
    run["aliases_input"] = bool(aliased)
    if not reference_aliases:
        add(checks, where, "output_aliases_input", len(aliased), 0, not aliased,
            "output has its own storage" if not aliased else f"output shares storage with input(s) {aliased}",
            f"output_aliases_input: the output shares storage with input(s) {aliased} at {where}")
    if not reply.get("copied"):
        add(checks, where, "output_received", 1, 0, False, "the runner did not hand the output over",
            f"output_received: the runner did not copy a {want} {list(expected_shape)} output into the slot at {where}")
        return False
    return True


def values(torch, checks, run, slot, ref, thresholds, kb_dtype, kb_tol, where, invariants, inputs64):
    """The judge's own checks of the slot against the reference."""
    unwritten = pattern_mask(torch, slot)
    m = oracle.compare(slot, ref, unwritten, kb_dtype=kb_dtype, kb_tol=kb_tol)
    t = thresholds
    for key in ("rel_frobenius", "norm_max_error", "max_abs_reference", "non_finite",
                "kernelbench_allclose", "zeros_pass_kernelbench"):
        run[key] = m[key]
    run["total_count"] = m["total_count"]
    run["written_count"] = m["written_count"]
    run["written_measured"] = True
    add(checks, where, "rel_frobenius", m["rel_frobenius"], t["rel_frobenius"], le(m["rel_frobenius"], t["rel_frobenius"]),
        f"||out-ref||/||ref|| = {fmt(m['rel_frobenius'])} (limit {fmt(t['rel_frobenius'])})")
    add(checks, where, "norm_max_error", m["norm_max_error"], t["norm_max_error"],
        le(m["norm_max_error"], t["norm_max_error"]),
        f"max|out-ref|/max|ref| = {fmt(m['norm_max_error'])} (limit {fmt(t['norm_max_error'])})")
    add(checks, where, "non_finite", m["non_finite"], 0, m["non_finite"] == 0,
        f"{m['non_finite']} written elements are NaN or Inf where the reference is finite (or differ "
        f"where it is not)", f"non_finite: {m['non_finite']} elements at {where}")
    frac = m["written_count"] / m["total_count"] if m["total_count"] else 1.0
    run["written_fraction"] = frac
    add(checks, where, "written_fraction", frac, t["written_fraction"], frac >= t["written_fraction"],
        f"{fmt(frac)} of {m['total_count']} output elements written (need >= {fmt(t['written_fraction'])})",
        f"written_fraction: {fmt(frac)} < {fmt(t['written_fraction'])} at {where}")
    del unwritten
    if invariants is not None and invariants.active and slot.is_floating_point():
        # The slot itself (its unwritten elements hold the pattern: NaN) and the reference as it
        # is held; reductions accumulate in float64. A half-precision output is widened to float32
        # (its own rounding would swamp the invariants), never to float64: a 6 GB output must not
        # cost float64 copies (the memory bound of docs/kernelbench.md).
        y = slot if slot.dtype in (torch.float32, torch.float64) else slot.float()
        for c in invariants.evaluate(y, ref, inputs64, t["invariant"]):
            run["invariants"].append(dict(c))
            add(checks, where, c["name"], c["value"], c["threshold"], c["passed"], c["detail"])
        del y


def sampled(torch, got, want, max_ref, thresholds):
    """A timed repetition's sampled elements against the reference at the same positions. Returns
    None when they agree, else what is wrong (one phrase)."""
    unwritten = pattern_mask(torch, got)
    if bool(unwritten.any().item()):
        return f"{int(unwritten.sum().item())} of {got.numel()} sampled elements were never written"
    g = got.to(torch.float64)
    w = want.to(torch.float64)
    r_fin = torch.isfinite(w)
    bad = int(((~torch.isfinite(g)) & r_fin).sum().item())
    if not bool(r_fin.all()):
        rnf = ~r_fin
        same = (torch.isnan(w) & torch.isnan(g)) | (w == g)
        bad += int((rnf & ~same).sum().item())
    if bad:
        return f"{bad} sampled elements are NaN or Inf where the reference is finite"
    d = torch.where(r_fin, g - w, torch.zeros_like(g))
    ww = torch.where(r_fin, w, torch.zeros_like(w))
    num = float(d.norm().item())
    den = float(ww.norm().item())
    rel = num / den if den > 0 else (0.0 if num == 0 else math.inf)
    nmax = float(d.abs().max().item()) / max_ref if max_ref > 0 else (0.0 if num == 0 else math.inf)
    if not (rel <= thresholds["rel_frobenius"] and nmax <= thresholds["norm_max_error"]):
        return (f"sampled error {fmt(rel)} (relative), {fmt(nmax)} (of max|ref|) against limits "
                f"{fmt(thresholds['rel_frobenius'])} and {fmt(thresholds['norm_max_error'])}")
    return None


def where_of(seed, variant):
    return run_label(seed, variant)
