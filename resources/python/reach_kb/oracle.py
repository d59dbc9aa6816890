"""Reach's scale-invariant comparison of a candidate output with the float64 reference.

Mirrors core/verify/oracle.cpp (docs/verifier.md): rel_frobenius = ||out-ref|| / ||ref|| and
norm_max_error = max|out-ref| / max|ref|, in float64; both NaN when any written element is NaN or
Inf; an unwritten element (still the allocator fill pattern) counts as 0. Where the REFERENCE itself
is not finite (sqrt of a negative, say), the candidate must be non-finite the same way, and those
elements are left out of the norms. Also the KernelBench view, reported but not part of the verdict:
`kernelbench_allclose` (would KernelBench's allclose at the precision's tolerance have passed on
the precision-rounded reference, unwritten elements read as 0) and `zeros_pass_kernelbench` (would
an all-zeros output pass it: the degenerate-reference flag).

Chunked, so a 1e9-element output never needs more than a few float64 copies of one chunk.
"""

import math

import torch

CHUNK = 1 << 24


def compare(out, ref, unwritten=None, kb_dtype=None, kb_tol=None):
    o_all = out.reshape(-1)
    r_all = ref.reshape(-1)
    m_all = unwritten.reshape(-1) if unwritten is not None else None
    n = o_all.numel()
    err_sq = ref_sq = 0.0
    max_err = max_ref = 0.0
    written = non_finite = ref_non_finite = mismatched = 0
    kb_ok = kb_dtype is not None and out.dtype == kb_dtype
    zeros_ok = kb_dtype is not None
    for s in range(0, n, CHUNK):
        e = min(n, s + CHUNK)
        o_raw = o_all[s:e]
        rc = r_all[s:e].to(torch.float64)
        oc = o_raw.to(torch.float64)
        if m_all is not None:
            mc = m_all[s:e]
            oc = oc.masked_fill(mc, 0.0)
            o_raw = o_raw.masked_fill(mc, 0)
            written += int((~mc).sum().item())
        else:
            written += e - s
        r_fin = torch.isfinite(rc)
        o_fin = torch.isfinite(oc)
        if not bool(r_fin.all()):
            rnf = ~r_fin
            same = (torch.isnan(rc) & torch.isnan(oc)) | (rc == oc)
            ref_non_finite += int(rnf.sum().item())
            mismatched += int((rnf & ~same).sum().item())
        non_finite += int(((~o_fin) & r_fin).sum().item())
        both = r_fin & o_fin
        d = torch.where(both, oc - rc, torch.zeros_like(oc))
        rr = torch.where(r_fin, rc, torch.zeros_like(rc))
        err_sq += float((d * d).sum().item())
        ref_sq += float((rr * rr).sum().item())
        if d.numel():
            max_err = max(max_err, float(d.abs().max().item()))
            max_ref = max(max_ref, float(rr.abs().max().item()))
        if kb_dtype is not None:
            rk = rc.to(kb_dtype)
            if kb_ok:
                kb_ok = bool(torch.allclose(rk, o_raw, atol=kb_tol, rtol=kb_tol))
            # allclose(ref, zeros) is |ref| <= atol element-wise (NaN fails).
            zeros_ok = zeros_ok and bool((rk.to(torch.float64).abs() <= kb_tol).all().item())
    bad = non_finite + mismatched
    if bad:
        rel = nmax = math.nan
    else:
        rel = math.sqrt(err_sq) / math.sqrt(ref_sq) if ref_sq > 0 else (0.0 if err_sq == 0 else math.inf)
        nmax = max_err / max_ref if max_ref > 0 else (0.0 if max_err == 0 else math.inf)
    return {
        "rel_frobenius": rel,
        "norm_max_error": nmax,
        "max_abs_reference": max_ref,
        "non_finite": bad,
        "reference_non_finite": ref_non_finite,
        "total_count": n,
        "written_count": written,
        "kernelbench_allclose": bool(kb_ok) if kb_dtype is not None else None,
        "zeros_pass_kernelbench": bool(zeros_ok) if kb_dtype is not None else None,
    }


def zeros_pass(ref, kb_dtype, kb_tol):
    """Would an all-zeros output pass KernelBench's allclose on this reference?"""
    r = ref.reshape(-1)
    for s in range(0, r.numel(), CHUNK):
        rk = r[s:s + CHUNK].to(kb_dtype).to(torch.float64)
        if not bool((rk.abs() <= kb_tol).all().item()):
            return False
    return True
