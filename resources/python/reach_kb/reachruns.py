"""The correctness runs of Reach's oracle: fresh inputs at several seeds and scales, candidate first.

Order inside one run, and why:
1. inputs drawn (`torch.manual_seed(seed)`, `get_inputs()` on the GPU when torch >= 2), scaled
   (floating tensors only), cast to the precision; a clone kept for the input check;
2. on CUDA the allocator's free blocks are pattern-filled (allocator.py), so stale memory cannot
   pass for a result;
3. the candidate runs, and only then anything else: in the first run the reference models do not
   even exist yet, so no reference output was ever freed for a `torch.empty` to pick up;
4. inputs compared bit for bit with the clone, output storage compared with the inputs' storage;
5. the float64 reference runs on the clone (the values the candidate was given), then the metrics,
   the KernelBench view and the invariants.
"""

import math

from . import allocator, oracle
from .environment import set_seed, synchronize
from .errors import UserError
from .invariants import Invariants
from .loading import describe, line_in
from .report import check, fmt, run_label, scale_label
from .tensors import (bitwise_equal, clone_inputs, describe_value, dtype_of, element_size, is_float,
                      overlaps, reach_cast, tensor_bytes, upcast)

KB_SEED = 42  # KernelBench's seed for get_init_inputs and the modules' weights
REDRAW_OFFSET = 1_000_003
KB_TOLERANCE = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2}


class Job:
    def __init__(self, torch, args, problem, device, thresholds, category, notes):
        self.torch = torch
        self.args = args
        self.problem = problem
        self.device = device
        self.dtype = dtype_of(args.precision)
        self.thresholds = thresholds
        self.kb_tol = KB_TOLERANCE[args.precision]
        self.category = category
        self.notes = notes
        self.cuda = device.type == "cuda"
        self.raw_init = None
        self.model_new = None
        self.kb_model = None  # Model at the precision: KernelBench's reference, the eager baseline
        self.ref_model = None  # Model in float64 (float32 where an op has no float64 kernel)
        self.ref_dtype = torch.float64
        self.expected_dtype = None
        self.expected_shape = None
        self.out_bytes = None
        self.reference_aliases = False
        self.reference_modifies = False
        self.invariants = None
        self.run_checks = []  # every check of every run, aggregated by the verdict
        self.cuda_fault = None
        self.cpu_inputs = False  # get_inputs() could not run under torch.device("cuda")

    # ---- models ----------------------------------------------------------------------------
    def init_inputs(self):
        return [reach_cast(x, self.device, self.dtype) for x in self.raw_init]

    def build_candidate(self, ModelNew):
        torch = self.torch
        with torch.no_grad():
            set_seed(torch, KB_SEED)
            m = ModelNew(*self.init_inputs())
            m = m.to(device=self.device, dtype=self.dtype)
        synchronize(torch, self.device)
        self.model_new = m

    def _build_model(self):
        torch = self.torch
        with torch.no_grad():
            set_seed(torch, KB_SEED)
            m = self.problem.call("Model(*get_init_inputs())", self.problem.Model, *self.init_inputs())
            return m.to(device=self.device, dtype=self.dtype)

    def build_references(self):
        self.kb_model = self._build_model()
        # The float64 reference holds the precision's weights, upcast: the values the candidate has.
        self.ref_model = self._build_model().to(self.torch.float64)
        self.invariants = Invariants(self.category, self.ref_model, self.notes)

    def reference(self, inputs):
        """The reference output for the (precision) `inputs`, in float64 where possible."""
        torch = self.torch
        x = [upcast(t, self.ref_dtype) for t in inputs]
        try:
            with torch.no_grad():
                out = self.ref_model(*x)
        except RuntimeError as e:
            if self.ref_dtype == torch.float64 and "Double" in str(e):
                self.ref_dtype = torch.float32
                self.ref_model = self.ref_model.float()
                self.notes.append(f"reference in float32: an op has no float64 kernel ({describe(e)})")
                return self.reference(inputs)
            raise self._reference_error(e)
        except Exception as e:
            raise self._reference_error(e)
        if not isinstance(out, torch.Tensor):
            raise UserError(f"{self.problem.path}: Model.forward returned {describe_value(out)}; "
                            f"the oracle checks a single tensor output")
        synchronize(torch, self.device)
        return out

    def _reference_error(self, e):
        line = line_in(e, self.problem.filename)
        where = f"line {line}: " if line else ""
        return UserError(f"{self.problem.path}: {where}Model.forward raised {describe(e)}")

    # ---- inputs ----------------------------------------------------------------------------
    def draw(self, seed, scale):
        """Fresh inputs at (seed, scale), cast to the precision; never an all-zero float tensor."""
        torch = self.torch
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
        for x in raw:
            if is_float(x) and scale != 1:
                x = x * scale
            out.append(reach_cast(x, self.device, self.dtype))
        return out

    def _get_inputs(self, seed):
        torch = self.torch
        torch.manual_seed(seed)  # seeds the CPU and every CUDA generator
        if self.cuda and _device_context_available(torch) and not self.cpu_inputs:
            try:
                with torch.device(self.device):  # big inputs are drawn on the GPU, not the CPU
                    return list(self.problem.get_inputs())
            except Exception as e:
                # Code that needs CPU tensors (`.numpy()`, say): draw on the CPU from now on.
                self.cpu_inputs = True
                self.notes.append(f"get_inputs() failed on the GPU ({describe(e)}); inputs drawn on the CPU")
                torch.manual_seed(seed)
        return list(self.problem.call("get_inputs()", self.problem.get_inputs))


def _device_context_available(torch):
    try:
        return hasattr(torch.device("cpu"), "__enter__")
    except Exception:
        return False


def _add(job, run, name, value, threshold, passed, detail, reason=None):
    c = check(name, value, threshold, passed, detail)
    c["where"] = run_label(run["seed"], run["scale"])
    if not passed:
        c["reason"] = reason or f"{name}: {fmt(value)} > {fmt(threshold)} at {c['where']}"
    job.run_checks.append(c)
    return c


def new_run(seed, scale):
    return {"seed": seed, "scale": scale, "scale_label": scale_label(scale), "rel_frobenius": None,
            "norm_max_error": None, "max_abs_reference": None, "written_fraction": None,
            "written_measured": False, "non_finite": None, "inputs_unchanged": None,
            "aliases_input": None, "kernelbench_allclose": None, "zeros_pass_kernelbench": None,
            "shape": None, "dtype": None, "invariants": [], "error": None}


def one_run(job, seed, scale):
    """Runs one (seed, scale) check. Returns (run record, go_on)."""
    torch = job.torch
    run = new_run(seed, scale)
    where = run_label(seed, scale)
    inputs = job.draw(seed, scale)
    before = clone_inputs(inputs)
    fill = None
    if job.cuda:
        # The output's size is known from the first run on; before it, guess the largest input's.
        need = job.out_bytes or max([tensor_bytes([x]) for x in inputs] or [0])
        try:
            need = min(need, torch.cuda.mem_get_info(job.device)[0] // 4)
        except Exception:
            pass
        fill = allocator.fill_free_blocks(torch, job.device, need)
        for n in fill.notes:
            if n not in job.notes:
                job.notes.append(n)
    try:
        with torch.no_grad():
            out = job.model_new(*inputs)
        synchronize(torch, job.device)
    except (KeyboardInterrupt,):
        raise
    except BaseException as e:
        run["error"] = describe(e)
        _add(job, run, "runtime_error", 1, 0, False, f"ModelNew.forward raised {describe(e)}",
             f"runtime_error: {describe(e)} at {where}")
        if is_cuda_fault(e):
            job.cuda_fault = describe(e)
        return run, False
    if not isinstance(out, torch.Tensor):
        _add(job, run, "output_type", 1, 0, False, f"returned {describe_value(out)}",
             f"output_type: expected a torch.Tensor, got {describe_value(out)} at {where}")
        return run, False

    unwritten = allocator.unwritten_mask(torch, out, fill) if job.cuda else None
    run["written_measured"] = unwritten is not None
    if job.cuda and unwritten is None:
        job.notes.append(f"written fraction not measured at {where}: the output's memory was not "
                         f"pattern-filled (a new segment, another stream's pool, or not PyTorch's allocator)")

    changed = [i for i, (a, b) in enumerate(zip(inputs, before))
               if isinstance(a, torch.Tensor) and not bitwise_equal(a, b)]
    aliased = overlaps(out, inputs)

    if job.ref_model is None:
        job.build_references()
        _learn_expected(job, before)
    run["inputs_unchanged"] = not changed
    run["aliases_input"] = bool(aliased)
    if job.reference_modifies:
        pass  # the problem's own Model changes its inputs: not the candidate's fault
    else:
        _add(job, run, "inputs_unchanged", len(changed), 0, not changed,
             "inputs unchanged" if not changed else f"the candidate modified input(s) {changed}",
             f"inputs_unchanged: the candidate modified input(s) {changed} at {where}")
    if not job.reference_aliases:
        _add(job, run, "output_aliases_input", len(aliased), 0, not aliased,
             "output has its own storage" if not aliased else f"output shares storage with input(s) {aliased}",
             f"output_aliases_input: the output shares storage with input(s) {aliased} at {where}")

    ref = job.reference(before)
    run["zeros_pass_kernelbench"] = oracle.zeros_pass(ref, job.expected_dtype, job.kb_tol) \
        if ref.is_floating_point() and job.expected_dtype.is_floating_point else None
    run["shape"] = list(out.shape)
    run["dtype"] = str(out.dtype).replace("torch.", "")
    if out.shape != ref.shape:
        _add(job, run, "shape", 1, 0, False, f"expected {list(ref.shape)}, got {list(out.shape)}",
             f"shape: expected {list(ref.shape)}, got {list(out.shape)} at {where}")
        return run, False
    _add(job, run, "shape", 0, 0, True, f"{list(out.shape)}")
    want = job.expected_dtype
    dtype_ok = out.dtype == want
    _add(job, run, "dtype", 0 if dtype_ok else 1, 0, dtype_ok,
         f"expected {want}, got {out.dtype}".replace("torch.", ""),
         f"dtype: expected {str(want).replace('torch.', '')}, got {run['dtype']} at {where}")
    job.out_bytes = out.numel() * element_size(out)

    m = oracle.compare(out, ref, unwritten, kb_dtype=want, kb_tol=job.kb_tol)
    t = job.thresholds
    for key in ("rel_frobenius", "norm_max_error", "max_abs_reference", "non_finite",
                "kernelbench_allclose", "zeros_pass_kernelbench"):
        run[key] = m[key]
    run["total_count"] = m["total_count"]
    run["written_count"] = m["written_count"] if unwritten is not None else None
    _add(job, run, "rel_frobenius", m["rel_frobenius"], t["rel_frobenius"],
         _le(m["rel_frobenius"], t["rel_frobenius"]),
         f"||out-ref||/||ref|| = {fmt(m['rel_frobenius'])} (limit {fmt(t['rel_frobenius'])})")
    _add(job, run, "norm_max_error", m["norm_max_error"], t["norm_max_error"],
         _le(m["norm_max_error"], t["norm_max_error"]),
         f"max|out-ref|/max|ref| = {fmt(m['norm_max_error'])} (limit {fmt(t['norm_max_error'])})")
    _add(job, run, "non_finite", m["non_finite"], 0, m["non_finite"] == 0,
         f"{m['non_finite']} written elements are NaN or Inf where the reference is finite (or differ "
         f"where it is not)", f"non_finite: {m['non_finite']} elements at {where}")
    if unwritten is not None:
        frac = m["written_count"] / m["total_count"] if m["total_count"] else 1.0
        run["written_fraction"] = frac
        _add(job, run, "written_fraction", frac, t["written_fraction"], frac >= t["written_fraction"],
             f"{fmt(frac)} of {m['total_count']} output elements written (need >= {fmt(t['written_fraction'])})",
             f"written_fraction: {fmt(frac)} < {fmt(t['written_fraction'])} at {where}")

    if job.invariants is not None and job.invariants.active:
        out64 = out.to(torch.float64)
        if unwritten is not None:
            out64 = out64.masked_fill(unwritten, math.nan)
        for c in job.invariants.evaluate(out64, ref.to(torch.float64),
                                         [upcast(x) for x in before], t["invariant"]):
            run["invariants"].append(dict(c))
            _add(job, run, c["name"], c["value"], c["threshold"], c["passed"], c["detail"])
        del out64
    return run, True


def is_cuda_fault(e):
    """A device fault (illegal address, launch failure): the context is unusable afterwards."""
    return "CUDA error" in str(e) or type(e).__name__ == "AcceleratorError"


def _le(v, limit):
    return v is not None and not (isinstance(v, float) and math.isnan(v)) and v <= limit


def _learn_expected(job, inputs):
    """Runs KernelBench's reference (the precision Model) once: the output dtype and shape the
    candidate must match, and whether the problem itself aliases or modifies its inputs."""
    torch = job.torch
    x = clone_inputs(inputs)
    try:
        with torch.no_grad():
            y = job.kb_model(*x)
        synchronize(torch, job.device)
    except Exception as e:
        raise job._reference_error(e)
    if not isinstance(y, torch.Tensor):
        raise UserError(f"{job.problem.path}: Model.forward returned {describe_value(y)}; "
                        f"the oracle checks a single tensor output")
    job.expected_dtype = y.dtype
    job.expected_shape = list(y.shape)
    job.reference_aliases = bool(overlaps(y, x))
    job.reference_modifies = any(isinstance(a, torch.Tensor) and not bitwise_equal(a, b)
                                 for a, b in zip(x, inputs))
    if job.reference_aliases:
        job.notes.append("the problem's Model returns a view of its input: aliasing is not checked")
    if job.reference_modifies:
        job.notes.append("the problem's Model modifies its inputs: the input check is skipped")
    del y, x
