"""The distributions the judge draws inputs from: the problem's own, and variations of it that a
correct kernel must also get right (issue 36, "Checks a degenerate problem cannot back").

- `scaled` (x1, x100, x0.01, -1, as KernelBench-Verified varies them): every floating input times
  the scale. A kernel that works only on non-negative inputs (relu(x) = x on torch.rand) or only
  near 1 is caught.
- `centred`: every floating input less its own mean, for fp32 problems. On torch.rand inputs
  (all positive) the result of a matrix product or a reduction is one large common part, against
  which the rounding of bf16 operands cancels (rel_frobenius 1.5e-4, inside fp32's 1e-3, on
  KernelBench's 4096^3 matmul); on mean-zero inputs it does not (about 1.6e-3 at any K), while
  TF32-like operands (10 mantissa bits, 5e-4 per operand) stay within 1e-3 (docs/verifier.md,
  "What fp32 means"). A variant whose reference is not finite where x1's was (log of a negative)
  is skipped with a note: the centred draw is not in the problem's domain.
- `spike`: a few elements of every floating input (one in 65,536, at least one, at secret
  places) multiplied by a large factor. A reduction computed on a sample of its input (an MSE on
  1/64 of the elements: error 1.4e-3 on i.i.d. inputs, well inside bf16's 1e-2) misses most of
  them; a kernel that reads every element does not. The factor is 1000, 32 in fp16 (whose
  largest value, 65504, a squared spike of 1000 would pass).

Every variant keeps index tensors as they are (an index is not a value), never draws zeros, and
is reproducible from its seed (the judge draws a timed repetition's inputs again to check it).
"""

SPIKE_EVERY = 1 << 16
SPIKE_FACTOR = {"fp16": 32.0}
SPIKE_FACTOR_DEFAULT = 1000.0
PERTURB_LOW, PERTURB_HIGH = 0.75, 1.25


class Variant:
    __slots__ = ("kind", "scale")

    def __init__(self, kind, scale=1.0):
        self.kind = kind
        self.scale = float(scale)

    @property
    def label(self):
        return f"x{self.scale:g}" if self.kind == "scaled" else self.kind

    def __repr__(self):
        return f"Variant({self.label})"

    def __eq__(self, other):
        return isinstance(other, Variant) and (self.kind, self.scale) == (other.kind, other.scale)

    def __hash__(self):
        return hash((self.kind, self.scale))


SCALE1 = Variant("scaled", 1.0)


def job_variants(scales, precision, extra):
    """The variants of a job: one per --scales entry, then the extra kinds (--variants; "auto":
    centred for fp32, spike always)."""
    out = [Variant("scaled", s) for s in scales]
    kinds = (["centred", "spike"] if precision == "fp32" else ["spike"]) if extra == ["auto"] else extra
    for k in kinds:
        if k in ("centred", "spike"):
            out.append(Variant(k))
    return out


def _generator(torch, device, seed):
    g = torch.Generator(device=device)
    g.manual_seed(int(seed) & ((1 << 63) - 1))
    return g


def apply(torch, x, variant, precision, seed):
    """`x` (one floating input, already at the precision) drawn from `variant`. `seed` makes a
    spike's places reproducible (each input gets its own)."""
    if variant.kind == "scaled":
        return x * variant.scale if variant.scale != 1 else x
    if variant.kind == "centred":
        # In float64, then back: the mean of a large bf16 tensor taken in bf16 is far off.
        c = x.double()
        c = c - c.mean()
        out = c.to(x.dtype)
        del c
        # A constant input centres to zeros: never test on zeros, keep it as drawn.
        return out if bool(out.any().item()) else x
    if variant.kind == "spike":
        n = x.numel()
        if n == 0:
            return x
        k = max(1, n // SPIKE_EVERY)
        g = _generator(torch, x.device, seed)
        where = torch.randint(0, n, (k,), generator=g, device=x.device)
        factor = SPIKE_FACTOR.get(precision, SPIKE_FACTOR_DEFAULT)
        # Coordinates, not a flat view: a channels-last input keeps its layout (clone does).
        coords = []
        for size in reversed(list(x.shape)):
            coords.append(where % size)
            where = where // size
        index = tuple(reversed(coords))
        out = x.clone()
        out[index] = out[index] * factor
        return out
    raise ValueError(f"unknown input variant {variant.kind!r}")


def perturb(torch, x, seed):
    """A pooled input set made new for one use: every element times its own factor in
    [0.75, 1.25) (from `seed`), sign and zeros kept. A cache keyed by a few elements, or by the
    whole set, never sees the same inputs twice; no cheaper function of a cached answer gives the
    new one (a scalar scale would: A*s @ B = s * (A @ B))."""
    g = _generator(torch, x.device, seed)
    f = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    f.uniform_(PERTURB_LOW, PERTURB_HIGH, generator=g)
    out = (x.float() * f).to(x.dtype)
    del f
    return out
