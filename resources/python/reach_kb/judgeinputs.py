"""The inputs the judge draws and hands to the runner through shared regions.

- `Layout`: what the problem's get_inputs() returns (tensor shapes and dtypes at the precision,
  plain values), learnt from one draw; every later draw must match it.
- `Draw`: fresh inputs at (seed, variant): `torch.manual_seed(seed)`, get_inputs() (on the GPU
  when it can run there), cast to the precision, floating tensors drawn from the variant
  (variants.py: scaled, centred, spiked); an all-zero floating tensor is redrawn (never test on
  zeros).
- `SharedInputs`: one region per tensor input; `load` copies a draw into them in place (same
  addresses every time: a candidate that caches by address returns a stale answer).
- `checksum`: a keyed hash of a region's bytes, with a key drawn from os.urandom per job, so the
  judge can tell whether the runner changed an input without keeping a copy of it (a copy of a
  6 GB input would break the memory bound) and without the runner being able to craft a change
  that keeps it.
"""

import os
import time

from . import channel
from .errors import UserError
from .loading import describe
from .sharedmem import Region
from .tensors import is_float, reach_cast
from .variants import SCALE1, apply as apply_variant

REDRAW_OFFSET = 1_000_003
CHECKSUM_CHUNK = 1 << 22  # elements (int32) per step: 32 MiB of int64 temporaries


def _device_context_available(torch):
    try:
        return hasattr(torch.device("cpu"), "__enter__")
    except Exception:
        return False


class Draw:
    def __init__(self, torch, problem, device, dtype, notes, precision="fp32"):
        self.torch = torch
        self.precision = precision
        self.problem = problem
        self.device = device
        self.dtype = dtype
        self.notes = notes
        self.cpu_inputs = False  # get_inputs() could not run under torch.device("cuda")
        self.times = []  # seconds each draw took

    def _get_inputs(self, seed):
        torch = self.torch
        torch.manual_seed(seed)  # seeds the CPU and every CUDA generator
        if self.device.type == "cuda" and _device_context_available(torch) and not self.cpu_inputs:
            try:
                with torch.device(self.device):  # big inputs are drawn on the GPU, not the CPU
                    return list(self.problem.get_inputs())
            except Exception as e:
                # Code that needs CPU tensors (`.numpy()`, say): draw on the CPU from now on.
                self.cpu_inputs = True
                self.notes.append(f"get_inputs() failed on the GPU ({describe(e)}); inputs drawn on the CPU")
                torch.manual_seed(seed)
        return list(self.problem.call("get_inputs()", self.problem.get_inputs))

    def __call__(self, seed, variant=SCALE1):
        """Fresh inputs at (seed, variant), cast to the precision; never an all-zero float tensor."""
        torch = self.torch
        t0 = time.perf_counter()
        raw = self._get_inputs(seed)
        for i, x in enumerate(raw):
            if is_float(x) and x.numel() and not bool(x.any().item()):
                self.notes.append(f"input {i} of get_inputs() is all zeros at seed {seed}; redrawn")
                again = self._get_inputs(seed + REDRAW_OFFSET)
                y = again[i] if i < len(again) else None
                if not (is_float(y) and y.shape == x.shape and bool(y.any().item())):
                    self.notes.append(f"input {i} is all zeros again; replaced by standard normal values")
                    torch.manual_seed(seed + REDRAW_OFFSET)
                    y = torch.randn(x.shape, dtype=x.dtype, device=x.device)
                raw[i] = y
        out = []
        for i, x in enumerate(raw):
            x = reach_cast(x, self.device, self.dtype)
            if is_float(x):
                x = apply_variant(self.torch, x, variant, self.precision, seed * 64 + i)
            out.append(x)
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)
        self.times.append(time.perf_counter() - t0)
        return out

    def typical_seconds(self):
        """What a draw costs once the generators are warm (the first pays CUDA's and cuRAND's
        start-up, 100-200 ms on the H200: not what drawing every repetition would cost)."""
        later = sorted(self.times[1:]) or self.times
        return later[len(later) // 2] if later else 0.0


def permuted_dense(shape, stride):
    """Whether `stride` lays `shape` out densely, without gaps or overlaps, in some order of its
    dimensions (dimensions of size 1 have any stride)."""
    if any(d == 0 for d in shape):
        return False
    expect = 1
    for i in sorted((i for i in range(len(shape)) if shape[i] != 1), key=lambda i: stride[i]):
        if stride[i] != expect:
            return False
        expect *= shape[i]
    return True


class Layout:
    """The shape of a problem's inputs, learnt from one draw."""

    def __init__(self, torch, inputs, problem_path):
        self.torch = torch
        self.path = problem_path
        self.specs = []
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                if x.is_complex() or x.is_sparse or x.layout != torch.strided:
                    raise UserError(f"{problem_path}: get_inputs() item {i} is a {x.layout} "
                                    f"{x.dtype} tensor; the oracle takes dense real tensors")
                spec = {"kind": "tensor", "dtype": str(x.dtype).replace("torch.", ""),
                        "shape": list(x.shape), "nbytes": x.numel() * x.element_size()}
                # A permuted dense layout (channels-last, a transposed operand) crosses as it was
                # drawn: the operator's kernel depends on it (a channels-last batch norm is not
                # the NCHW one), so the reference, the baselines and the candidate all see it.
                # Any other layout (gaps, overlaps) crosses dense and contiguous.
                if not x.is_contiguous() and permuted_dense(list(x.shape), list(x.stride())):
                    spec["stride"] = list(x.stride())
                self.specs.append(spec)
            elif x is None or isinstance(x, (bool, int, float, str)):
                self.specs.append({"kind": "value"})
            else:
                raise UserError(f"{problem_path}: get_inputs() item {i} is a {type(x).__name__}; "
                                f"the oracle takes tensors and plain numbers, strings or None")
        tensors = sum(1 for s in self.specs if s["kind"] == "tensor")
        if tensors > channel.MAX_FDS:  # each crosses to the runner as one descriptor
            raise UserError(f"{problem_path}: get_inputs() returns {tensors} tensors; "
                            f"at most {channel.MAX_FDS} can be shared with the runner")

    def values(self, inputs):
        return [x for x, s in zip(inputs, self.specs) if s["kind"] == "value"]

    def check(self, inputs, where):
        torch = self.torch
        if len(inputs) != len(self.specs):
            raise UserError(f"{self.path}: get_inputs() returned {len(inputs)} items at {where}, "
                            f"{len(self.specs)} before; the oracle needs the same inputs every draw")
        for i, (x, s) in enumerate(zip(inputs, self.specs)):
            if s["kind"] == "tensor":
                ok = (isinstance(x, torch.Tensor) and list(x.shape) == s["shape"]
                      and str(x.dtype).replace("torch.", "") == s["dtype"])
                if not ok:
                    raise UserError(f"{self.path}: get_inputs() item {i} is not a {s['dtype']} "
                                    f"{s['shape']} tensor at {where} as it was before; the oracle "
                                    f"needs fixed shapes")
            elif isinstance(x, torch.Tensor):
                raise UserError(f"{self.path}: get_inputs() item {i} is a tensor at {where}, a value before")

    @property
    def input_bytes(self):
        return sum(s["nbytes"] for s in self.specs if s["kind"] == "tensor")


class SharedInputs:
    def __init__(self, torch, device, layout):
        self.torch = torch
        self.layout = layout
        self.regions = []
        self.views = []
        for s in layout.specs:
            if s["kind"] == "tensor":
                r = Region.create(torch, device, s["nbytes"])
                self.regions.append(r)
                self.views.append(r.view(getattr(torch, s["dtype"]), s["shape"], s.get("stride")))
            else:
                self.views.append(None)

    def hello_specs(self):
        out = []
        it = iter(self.regions)
        for s in self.layout.specs:
            if s["kind"] == "tensor":
                out.append({"kind": "tensor", "dtype": s["dtype"], "shape": s["shape"],
                            "stride": s.get("stride"), "region": next(it).describe()})
            else:
                out.append({"kind": "value"})
        return out

    def export_fds(self):
        return [r.export_fd() for r in self.regions]

    def load(self, inputs):
        """Copies a draw into the shared regions (in place, on the current stream); returns the
        plain values."""
        for v, x in zip(self.views, inputs):
            if v is not None:
                v.copy_(x)
        return self.layout.values(inputs)

    def tensors(self):
        return [v for v in self.views if v is not None]

    def as_inputs(self, values):
        """The shared views with the values in their places: what the runner was given."""
        out, it = [], iter(values)
        for v in self.views:
            out.append(v if v is not None else next(it, None))
        return out

    def canary_damage(self):
        return sum(r.canary_damage() for r in self.regions)


class Checksum:
    """A keyed hash of bytes: sum over int32 words w_i of (w_i * (A*i + B)) mod 2^64, A and B
    secret. Without the key a runner cannot change words and keep the sum."""

    def __init__(self, torch):
        self.torch = torch
        key = int.from_bytes(os.urandom(16), "little")
        # Odd multipliers, as int64 (two's complement arithmetic wraps: that is the hash's ring).
        self.a = ((key & ((1 << 62) - 1)) | 1)
        self.b = ((key >> 64) & ((1 << 62) - 1)) | 1

    def __call__(self, u8):
        torch = self.torch
        n = u8.numel()
        words = n // 4
        total = torch.zeros((), dtype=torch.int64, device=u8.device)
        if words:
            w32 = u8[: words * 4].view(torch.int32)
            for s in range(0, words, CHECKSUM_CHUNK):
                e = min(words, s + CHECKSUM_CHUNK)
                idx = torch.arange(s, e, dtype=torch.int64, device=u8.device)
                total += (w32[s:e].to(torch.int64) * (idx * self.a + self.b)).sum()
        if n % 4:
            tail = u8[words * 4:].to(torch.int64)
            idx = torch.arange(tail.numel(), dtype=torch.int64, device=u8.device)
            total += (tail * (idx * self.b + self.a)).sum()
        return int(total.item())

    def of_regions(self, regions):
        return [self(r.data) for r in regions]
