"""The verified winners of a benchmark in place of their operators, for exactly the call
signatures they were verified at (docs/integration.md).

Each problem of `reach-cli extract` calls one ATen operator with recorded arguments. Its
signature is learnt by calling the problem's Model once under a dispatch mode that stops at that
operator (on the meta device where PyTorch has it: nothing is computed): the operator overload,
and every argument's dtype, shape and strides or value. A call of the workload with the same
signature runs the candidate instead; every other call falls through to PyTorch's own kernel.

The override is a Python kernel registered with torch.library for the operator's autograd key
of the device (AutogradCUDA, AutogradCPU), not for its backend key: a kernel registered for
CUDA replaces PyTorch's and leaves nothing to fall through to, while below the autograd key
PyTorch's kernel is still there (reached with _AutoDispatchBelowAutograd, as PyTorch's own
autograd kernels do). What this costs: a call that autograd must record is refused (the
candidate was verified forward only; its backward is unknown), and a workload under
torch.inference_mode(), which skips the autograd keys, is never substituted (the report's
counts say so).

With hooks_only the same kernels are registered and every call falls through, the calls at a
winner's signature included: the control run that measures what the overrides cost by
themselves, apart from what the candidates cost (docs/integration.md, "The control"). In both the host time of each measured call at a winner's signature is kept, from the
override's entry to its return, apart for the profiled steps and the wall-clock steps (no
profiler running)."""

import hashlib
import math
import statistics
import time

import torch

from reach_kb import loading, oracle, thresholds

from . import native


class IntegrateError(Exception):
    """Bad input: a plan or a file that is not what it says (exit 2)."""


class Mismatch(BaseException):
    """A substituted call disagreed with the operator's own output: the run stops."""


class NeedsGrad(BaseException):
    """A substituted operator was called with inputs autograd records."""


class _Captured(BaseException):
    def __init__(self, func, args, kwargs):
        super().__init__()
        self.func, self.args, self.kwargs = func, args, kwargs


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def norm(v):
    """What a call's argument contributes to its signature (devices left out: the problem ran on
    the meta device or the CPU, the workload on the GPU)."""
    if isinstance(v, torch.Tensor):
        return ("tensor", str(v.dtype), tuple(v.shape), tuple(v.stride()))
    if isinstance(v, (list, tuple)):
        return ("list", tuple(norm(x) for x in v))
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("number", float(v))
    if v is None:
        return ("none",)
    if isinstance(v, torch.device):
        return ("device",)
    return ("value", str(v))


def signature(func, args, kwargs):
    """A call's signature over its operator's whole schema: PyTorch hands a Python kernel or a
    dispatch mode its arguments with trailing defaults left out, and not always the same ones
    (a problem's explicit call and a module's call of the same thing differ), so every argument
    is taken as given or as its default."""
    kwargs = kwargs or {}
    spec = _SCHEMAS.get(func)
    if spec is None:  # read once per operator: a schema's Arguments are built on every access
        spec = _SCHEMAS[func] = [(a.name, getattr(a, "default_value", None))
                                 for a in func._schema.arguments]
    out = []
    for i, (name, default) in enumerate(spec):
        if i < len(args):
            v = args[i]
        else:
            v = kwargs.get(name, default)
        out.append(norm(v))
    return tuple(out)


_SCHEMAS = {}


def _median(values):
    return statistics.median(values) if values else None


def describe(args):
    """A short text of a call's tensors: what a fall-through was called with."""
    parts = []
    for a in args:
        if isinstance(a, torch.Tensor):
            parts.append("%s%s" % (str(a.dtype).replace("torch.", ""), list(a.shape)))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], torch.Tensor):
            parts.append("[%d tensors]" % len(a))
    return ", ".join(parts) or "no tensors"


def below_autograd(fn, *args, **kwargs):
    guard = torch._C._AutoDispatchBelowAutograd()
    if hasattr(guard, "__enter__"):
        with guard:
            return fn(*args, **kwargs)
    try:
        return fn(*args, **kwargs)
    finally:
        del guard


def _paths(value, inputs, at):
    """Where each of the problem's input tensors sits in the call: {input index: path}."""
    found = {}
    if isinstance(value, torch.Tensor):
        for i, x in enumerate(inputs):
            if value is x:
                found[i] = at
    elif isinstance(value, (list, tuple)):
        for k, v in enumerate(value):
            found.update({i: p for i, p in _paths(v, inputs, at + (k,)).items() if i not in found})
    return found


def _resolve(args, kwargs, path):
    v = args if path[0] == "args" else kwargs
    for k in path[1:]:
        v = v[k]
    return v


def _first(out):
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


def _meta_device():
    try:
        d = torch.device("meta")
        return d if hasattr(d, "__enter__") else None
    except Exception:
        return None


class Winner:
    """One verified problem: its signature, its candidate, what happened to its calls."""

    def __init__(self, spec, device, tolerances, load_candidate=True, record_extensions=False):
        self.name = spec["name"]
        self.operator = spec["operator"]
        self.problem_path, self.candidate_path = spec["problem"], spec["candidate"]
        for path, key in ((self.problem_path, "problem_sha256"),
                          (self.candidate_path, "candidate_sha256")):
            if digest(path) != spec[key]:
                raise IntegrateError(f"{path}: its bytes are not the ones verified "
                                     f"({key} {spec[key][:12]}...)")
        self.tolerances = tolerances  # {"fp32": {...}, "bf16": {...}, "fp16": {...}}
        self.problem = loading.load_problem(self.problem_path, "reach")
        self._learn_signature()
        self.model = None
        # The native path (native.py): how the candidate's load_inline extensions were built
        # and whether its forward is a pass-through to one of their functions.
        self.recorder, self.native_plan, self.native_why = None, None, None
        self.native_call = None  # the native candidate from Python, for the checked calls
        if load_candidate:
            self._load_candidate(device, record_extensions)
        if not record_extensions:
            self.native_why = "the Python host path"
        self.substituted = self.substituted_warmup = self.substituted_wall = self.checked = 0
        # Each measured call at the signature, the override's entry to return, per phase.
        self.host_us = {"profiled": [], "wall": []}
        self.max_rel_frobenius = self.max_norm_max_error = 0.0
        self.others = None  # (dtype, shape, stride) of the operator's outputs past the first
        self.native_table, self.native_key, self.calls_from_cpp = None, None, None

    def _load_candidate(self, device, record_extensions):
        from torch.utils import cpp_extension
        real = cpp_extension.load_inline
        if record_extensions:
            self.recorder = native.Recorder(real)
            cpp_extension.load_inline = self.recorder
        try:
            candidate = loading.load_candidate(self.candidate_path, self.problem, "reach")
            init = self.problem.call("get_init_inputs()", self.problem.get_init_inputs)
            model = candidate.ModelNew(*init)
        finally:
            cpp_extension.load_inline = real
        self.model = model.to(device) if isinstance(model, torch.nn.Module) else model
        if record_extensions:
            self._learn_native(device)

    def _learn_native(self, device):
        """Runs the candidate once on the problem's inputs to see whether its forward is a
        pass-through to one load_inline function (native.pass_through)."""
        if not self.recorder.builds:
            self.native_why = "it builds no load_inline extension (the Python path)"
            return
        torch.manual_seed(0)
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x
                  for x in self.problem.call("get_inputs()", self.problem.get_inputs)]
        self.recorder.calls.clear()
        with torch.no_grad():
            out = self.model(*inputs)
        plan, why = native.pass_through(self.recorder, inputs, out)
        self.recorder.calls.clear()
        if plan is None:
            self.native_why = why
            return
        index, function, order, constants = plan
        if any(i >= 0 and (self.stack_paths[i] is None or len(self.stack_paths[i]) != 2)
               for i in order):
            self.native_why = f"an input of {function} is not an argument of the operator itself"
            return
        self.native_plan = (self.recorder.builds[index][0], function, order, constants)

    def _learn_signature(self):
        problem = self.problem
        wanted = self.operator.split("::", 1)[-1]
        functional = wanted[:-1] if wanted.endswith("_") and not wanted.endswith("__") else wanted
        from torch.utils._python_dispatch import TorchDispatchMode

        from torch.utils._pytree import tree_flatten

        class Stop(TorchDispatchMode):
            def __init__(self, skip_meta):
                super().__init__()
                self.skip_meta = skip_meta

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func._schema.name.split("::", 1)[-1]
                if name in (wanted, functional) and not (self.skip_meta and _on_meta(args, kwargs)):
                    raise _Captured(func, args, kwargs or {})
                return func(*args, **(kwargs or {}))

        def _on_meta(args, kwargs):
            # Reach's problems size the operator's outputs on meta tensors first (extract's
            # problemsource.cpp): that probe is not the call whose inputs are the problem's.
            flat, _ = tree_flatten((args, kwargs or {}))
            return any((isinstance(a, torch.Tensor) and a.device.type == "meta")
                       or (isinstance(a, torch.device) and a.type == "meta") or a == "meta"
                       for a in flat if isinstance(a, (torch.Tensor, torch.device, str)))

        meta = _meta_device()
        torch.manual_seed(0)
        if meta is not None:
            with meta:
                inputs = problem.call("get_inputs()", problem.get_inputs)
                model = problem.call("Model()", problem.Model,
                                     *problem.call("get_init_inputs()", problem.get_init_inputs))
        else:
            inputs = problem.call("get_inputs()", problem.get_inputs)
            model = problem.call("Model()", problem.Model,
                                 *problem.call("get_init_inputs()", problem.get_init_inputs))
        inputs_on_meta = any(isinstance(x, torch.Tensor) and x.device.type == "meta"
                             for x in inputs)
        try:
            with torch.no_grad(), Stop(skip_meta=not inputs_on_meta):
                model(*inputs)
        except _Captured as c:
            captured = c
        else:
            raise IntegrateError(f"{self.problem_path}: its Model never calls {self.operator}")
        self.func = captured.func
        self.signature = signature(captured.func, captured.args, captured.kwargs)
        found = _paths(tuple(captured.args), inputs, ("args",))
        for k, v in captured.kwargs.items():
            found.update({i: p for i, p in _paths(v, inputs, ("kwargs", k)).items()
                          if i not in found})
        tensors = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)]
        missing = [i for i in tensors if i not in found]
        if missing:
            raise IntegrateError(f"{self.problem_path}: input {missing[0]} reaches "
                                 f"{self.operator} only through a view; integrate substitutes "
                                 f"calls whose tensors are the problem's inputs")
        self.paths = [found.get(i) for i in range(len(inputs))]
        # The same places in the boxed call the native overrides hand over (every argument of
        # the schema, positionally).
        names = [a.name for a in self.func._schema.arguments]
        self.stack_paths = [None if p is None else
                            (p if p[0] == "args" else ("args", names.index(p[1])) + p[2:])
                            for p in self.paths]
        self.captured_args, self.captured_kwargs = tuple(captured.args), dict(captured.kwargs)
        self.values = [None if isinstance(x, torch.Tensor) else x for x in inputs]
        # An in-place operator of the trace was verified as its functional form: the override
        # sits on the in-place overload and writes the candidate's output back.
        self.inplace = wanted != functional
        packet = getattr(torch.ops.aten, wanted)
        self.override = getattr(packet, self.func._overloadname)

    def inputs_of(self, args, kwargs, paths=None):
        return [self.values[i] if p is None else _resolve(args, kwargs, p)
                for i, p in enumerate(paths or self.paths)]

    def compare(self, out, ref, call):
        why = None
        if not isinstance(out, torch.Tensor):
            why = f"returned a {type(out).__name__}, not a tensor"
        elif out.shape != ref.shape or out.dtype != ref.dtype:
            why = (f"returned {str(out.dtype).replace('torch.', '')}{list(out.shape)}, the "
                   f"operator {str(ref.dtype).replace('torch.', '')}{list(ref.shape)}")
        else:
            # Two results in the output's own type: the tolerance of that type (a bf16 result is
            # compared with bf16's, as the oracle compares a bf16 run).
            tol = self.tolerances[{torch.bfloat16: "bf16", torch.float16: "fp16"}.get(
                ref.dtype, "fp32")]
            m = oracle.compare(out, ref)
            rel, nmax = m["rel_frobenius"], m["norm_max_error"]
            if m["non_finite"] or math.isnan(rel) or math.isnan(nmax):
                why = (f"{m['non_finite']} elements non-finite where the operator's are finite, "
                       f"or finite where its are not")
            else:
                self.max_rel_frobenius = max(self.max_rel_frobenius, rel)
                self.max_norm_max_error = max(self.max_norm_max_error, nmax)
                if rel > tol["rel_frobenius"]:
                    why = "rel_frobenius %.3g > %.3g" % (rel, tol["rel_frobenius"])
                elif nmax > tol["norm_max_error"]:
                    why = "norm_max_error %.3g > %.3g" % (nmax, tol["norm_max_error"])
        self.checked += 1
        if why:
            raise Mismatch(f"{self.name}: call {call} of {self.operator} substituted by "
                           f"{self.candidate_path}: {why}")

    def report(self):
        return {"name": self.name, "operator": self.operator, "problem": self.problem_path,
                "candidate": self.candidate_path, "substituted": self.substituted,
                "substituted_warmup": self.substituted_warmup, "checked": self.checked,
                "max_rel_frobenius": self.max_rel_frobenius,
                "max_norm_max_error": self.max_norm_max_error,
                "in_place_written_back": self.inplace,
                "outputs_not_computed": len(self.others) if self.others else 0,
                "substituted_unprofiled": self.substituted_wall,
                "measured_calls_at_signature": len(self.host_us["profiled"]),
                "host_us_per_call": _median(self.host_us["profiled"]),
                "host_us_per_call_unprofiled": _median(self.host_us["wall"]),
                "native": self.native_call is not None, "native_why": self.native_why,
                "calls_from_cpp": self.calls_from_cpp}


class Substitution:
    """The winners installed for a run. `host_path` "native" puts the overrides in C++
    (native_override.cpp; native.py says when it cannot be built, and the run then takes the
    Python path and says why), "python" keeps them in Python."""

    def __init__(self, plan, device, resources_worker_dir, session_phase, hooks_only=False,
                 host_path="python"):
        self.device = device
        self.phase = session_phase  # "warmup", "wall" or "profiled" (steps.Session.phase)
        self.hooks_only = hooks_only
        self.check_every = int(plan.get("check_every", 0))
        self.native = None
        self.host_path, self.host_path_why = "python", None
        if host_path == "native":
            try:
                self.native = native.load()
                self.host_path = "native"
            except native.Unavailable as e:
                self.host_path_why = str(e)
        tol = {p: thresholds.load(resources_worker_dir, p) for p in ("fp32", "bf16", "fp16")}
        self.winners = [Winner(w, device, tol, not hooks_only, self.native is not None)
                        for w in plan["problems"]]
        self.fell_through = {}
        self.inside = False
        self.refused_grad = 0
        self.pending = None  # a Mismatch or NeedsGrad raised under the native overrides
        self._libs = []
        self._tables = []  # (native table index, [winner indices]) in native mode
        by_override = {}
        for w in self.winners:
            by_override.setdefault(w.override, []).append(w)
        key = "AutogradCUDA" if device == "cuda" else "AutogradCPU"
        if self.native is not None:
            try:
                for override, winners in by_override.items():
                    self._install_native(override, winners, key)
                return
            except Exception as e:  # a schema or argument the C++ side cannot take: all Python
                self.native.uninstall()
                self.native, self._tables = None, []
                self.host_path, self.host_path_why = "python", (
                    f"the native overrides could not be installed: {type(e).__name__}: {e}")
                for w in self.winners:
                    w.native_call, w.native_why = None, "the Python host path"
        for override, winners in by_override.items():
            table = {}
            for w in winners:
                table.setdefault(w.signature, w)  # the first (hottest) of equal signatures
            lib = torch.library.Library("aten", "IMPL")
            name = override._schema.name.split("::", 1)[-1]
            if override._overloadname != "default":
                name += "." + override._overloadname
            lib.impl(name, self._handler(override, table), key)
            self._libs.append(lib)  # a Library deregisters its kernels when collected

    def close(self):
        """Takes the overrides out (the process goes on without them)."""
        if self.native is not None:
            self.native.uninstall()
            self._tables = []
        self._libs = []

    def phase_changed(self, name):
        """steps.Session's hook: the native overrides time calls by phase."""
        if self.native is not None:
            self.native.set_phase({"warmup": 0, "wall": 1, "profiled": 2}[name])

    def _install_native(self, override, winners, key):
        name = override._schema.name
        overload = "" if override._overloadname == "default" else override._overloadname
        table = {}
        for w in winners:
            w.native_key = self.native.key_of(name, overload, w.captured_args, w.captured_kwargs)
            table.setdefault(w.native_key, self.winners.index(w))
        index = self.native.install(name, overload, key, table, self.hooks_only,
                                    self.check_every, self._native_callback(override))
        self._tables.append((index, [self.winners.index(w) for w in winners]))
        for w in winners:
            w.native_table = index
            if self.hooks_only:
                continue
            if w.native_plan is None:
                self._drive_python(w, index)
                continue
            spec, function, order, constants = w.native_plan
            try:
                qualified = native.compile_candidate(spec, function, torch)
            except native.Unavailable as e:
                w.native_why = str(e)
                self._drive_python(w, index)
                continue
            ns, fn = qualified.split("::")
            op = getattr(getattr(torch.ops, ns), fn)
            stack_order = [w.stack_paths[i][1] if i >= 0 else i for i in order]
            try:
                self.native.set_native(index, self.winners.index(w), qualified, stack_order,
                                       list(constants), w.inplace)
            except Exception as e:  # its C++ takes other arguments than the call gives it
                w.native_why = f"{function} as an operator: {e}"
                self._drive_python(w, index)
                continue
            w.native_call = (lambda op, order, constants: lambda *inputs: op(
                *[inputs[i] if i >= 0 else constants[-i - 1] for i in order]))(
                    op, order, constants)
            w.native_why = None

    def _drive_python(self, w, index):
        """A Python candidate whose inputs are the call's own arguments: the C++ override calls
        its ModelNew on the unchecked calls, past substitute.py's bookkeeping."""
        if any(p is not None and len(p) != 2 for p in w.stack_paths):
            return
        order, constants = [], []
        for i, p in enumerate(w.stack_paths):
            if p is None:
                constants.append(w.values[i])
                order.append(-len(constants))
            else:
                order.append(p[1])
        self.native.set_python(index, self.winners.index(w), w.model, order, constants,
                               w.inplace)

    def _native_callback(self, override):
        qualified = "aten::" + override._schema.name.split("::", 1)[-1]
        if override._overloadname != "default":
            qualified += "." + override._overloadname

        # The boxed call holds every argument in schema order; PyTorch's own operator, called
        # for the check, takes the keyword-only ones (add's alpha) by name.
        kw_only = [(a.name, a.kwarg_only) for a in override._schema.arguments]

        def callback(index, args, check):
            w = self.winners[index]
            try:
                self._refuse_grad(w, qualified, args, {})
                pos = [a for a, (_, k) in zip(args, kw_only) if not k]
                kw = {n: a for a, (n, k) in zip(args, kw_only) if k}
                return self._substitute(w, pos, kw, check=check,
                                        inputs=w.inputs_of(args, {}, w.stack_paths))
            except (Mismatch, NeedsGrad) as e:
                # Through the dispatcher it reaches the workload as a RuntimeError, which the
                # workload may catch: kept here, it ends the run whatever the workload does.
                self.pending = self.pending or e
                raise

        return callback

    def _refuse_grad(self, w, qualified, args, kwargs):
        if torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad
                for a in list(args) + list(kwargs.values())):
            self.refused_grad += 1
            raise NeedsGrad(f"{w.name}: {qualified} was called with inputs that require "
                            f"grad; integrate substitutes calls autograd does not record "
                            f"(the candidate was verified forward only)")

    def _handler(self, override, table):
        qualified = "aten::" + override._schema.name.split("::", 1)[-1]
        if override._overloadname != "default":
            qualified += "." + override._overloadname

        described = {}  # signature -> its text, made once (a fall-through's cost is host time)

        def handler(*args, **kwargs):
            if self.inside:
                return below_autograd(override, *args, **kwargs)
            t0 = time.perf_counter()
            sig = signature(override, args, kwargs)
            w = table.get(sig)
            if w is not None and self.hooks_only:
                out = below_autograd(override, *args, **kwargs)
                phase = self.phase()
                if phase != "warmup":
                    w.host_us[phase].append((time.perf_counter() - t0) * 1e6)
                return out
            if w is None:
                f = self.fell_through.setdefault(qualified, {"calls": 0, "signatures": {}})
                f["calls"] += 1
                d = described.get(sig)
                if d is None:
                    d = described[sig] = describe(args)
                f["signatures"][d] = f["signatures"].get(d, 0) + 1
                return below_autograd(override, *args, **kwargs)
            self._refuse_grad(w, qualified, args, kwargs)
            out = self._substitute(w, args, kwargs)
            phase = self.phase()
            if phase != "warmup":
                w.host_us[phase].append((time.perf_counter() - t0) * 1e6)
            return out

        return handler

    def _substitute(self, w, args, kwargs, check=None, inputs=None):
        """Runs the candidate on a call at its signature; `check` (the native overrides decide
        it) compares its output with PyTorch's; `inputs`, the problem's inputs taken from a
        boxed call (else from args and kwargs)."""
        phase = self.phase()
        measuring = phase != "warmup"
        calls = w.substituted + w.substituted_warmup + w.substituted_wall + 1
        if check is None:
            check = (not measuring or w.others is None or
                     (self.check_every and calls % self.check_every == 0))
        self.inside = True
        try:
            if inputs is None:
                inputs = w.inputs_of(args, kwargs)
            out = below_autograd(w.native_call or w.model, *inputs)
            if check:
                full = below_autograd(w.func, *args, **kwargs)
                ref = _first(full)
                if w.others is None:
                    rest = list(full[1:]) if isinstance(full, (tuple, list)) else []
                    w.others = [(t.dtype, tuple(t.shape), tuple(t.stride())) for t in rest]
                    if self.native is not None:
                        self.native.set_others(
                            w.native_table, self.winners.index(w),
                            [(list(t.shape), list(t.stride()), self.native.scalar_type_of(t))
                             for t in rest])
                w.compare(out, ref, calls)
        finally:
            self.inside = False
        if phase == "profiled":
            w.substituted += 1
        elif phase == "wall":
            w.substituted_wall += 1
        else:
            w.substituted_warmup += 1
        if w.inplace:
            args[0].copy_(out)
            return args[0]
        if not w.others:
            return out
        # The operator's other outputs (embedding_bag's offset2bag, max pool's indices, batch
        # norm's saved statistics) are not computed: the problem's oracle checked the first.
        return (out,) + tuple(torch.empty_strided(shape, stride, dtype=dtype, device=out.device)
                              for dtype, shape, stride in w.others)

    def report(self):
        if self.native is not None:
            self._collect_native()
        return {"problems": [w.report() for w in self.winners],
                "fell_through": self.fell_through, "refused_grad": self.refused_grad,
                "host_path": self.host_path, "host_path_why": self.host_path_why}

    def _collect_native(self):
        """What the C++ overrides counted and timed, into the winners' and the run's report."""
        for index, members in self._tables:
            r = self.native.report(index)
            if r["calls"]:
                self.fell_through[r["operator"]] = {"calls": r["calls"],
                                                    "signatures": dict(r["fell_through"])}
            for i in members:
                w = self.winners[i]
                for phase in ("wall", "profiled"):
                    w.host_us[phase] = list(r["host_us"][phase].get(i, []))
                w.calls_from_cpp = {p: r["calls_from_cpp"][p].get(i, 0)
                                  for p in ("wall", "profiled")}
                w.substituted += w.calls_from_cpp["profiled"]
                w.substituted_wall += w.calls_from_cpp["wall"]
