"""integrate's native host path (docs/integration.md, "The host path"): the overrides in C++
(native_override.cpp) and the candidates that can run without Python.

`load()` builds native_override.cpp against the workload's own PyTorch with
torch.utils.cpp_extension, once per source and PyTorch version (the build folder is
$REACH_TORCH_EXTENSIONS_DIR, else $REACH_CACHE_DIR/torch_extensions, else
~/.cache/reach/torch_extensions), and raises Unavailable with why when it cannot be built.

A candidate is native when its ModelNew.forward is a pass-through to one function of one
load_inline extension: recorded while the candidate loads and runs once, the forward makes
exactly one call of the extension, each argument one of its inputs or a constant, and returns
that call's result as it is. Its sources are then compiled again, unchanged, with one
registration added (`m.def("fn", &fn)`: the function becomes an operator), so the override can
call it boxed from C++ with the call's own tensors. Anything else (a Triton candidate, a forward
that does more, a function whose C++ types PyTorch cannot register) keeps the Python path, and
the report says why."""

import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "native_override.cpp")
CFLAGS = ["-O2", "-std=c++17"]

_module = None


class Unavailable(Exception):
    """The native path cannot be built or used here; the message says why."""


def _digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8") if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def build_root(torch):
    root = os.environ.get("REACH_TORCH_EXTENSIONS_DIR")
    if not root:
        cache = os.environ.get("REACH_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "reach")
        root = os.path.join(cache, "torch_extensions")
    # One folder per PyTorch and Python: an extension built for one is not loadable by another.
    tag = "torch%s-py%d%d" % (torch.__version__.replace("+", "_"), *sys.version_info[:2])
    path = os.path.join(root, tag)
    os.makedirs(path, exist_ok=True)
    return path


def load():
    """The built native_override module (built once here, cached on disk)."""
    global _module
    if _module is not None:
        return _module
    import torch
    from torch.utils import cpp_extension
    with open(SOURCE, "rb") as f:
        source = f.read()
    name = "reach_native_override_" + _digest(source, torch.__version__)
    folder = os.path.join(build_root(torch), name)
    os.makedirs(folder, exist_ok=True)
    try:
        _module = cpp_extension.load(name=name, sources=[SOURCE], build_directory=folder,
                                     extra_cflags=CFLAGS, verbose=False)
    except Exception as e:  # no compiler, no headers, a PyTorch too old: the Python path
        raise Unavailable(f"native_override.cpp did not build: {_last_line(e)}") from None
    return _module


def _last_line(exc):
    lines = [l for l in str(exc).strip().splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l]
    return (errors or lines or [type(exc).__name__])[-1].strip()[:300]


class Recorder:
    """Stands in for torch.utils.cpp_extension.load_inline while a candidate loads: builds the
    extension as asked, remembers how, and hands back a module whose functions record their
    calls (what forward does with them decides whether the candidate can run natively)."""

    def __init__(self, real):
        self.real = real
        self.builds = []  # (kwargs of load_inline, the proxy)
        self.calls = []  # (proxy, function name, args, kwargs, result)

    def __call__(self, *args, **kwargs):
        names = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags",
                 "extra_cuda_cflags", "extra_ldflags", "extra_include_paths", "build_directory",
                 "verbose", "with_cuda", "is_python_module", "with_pytorch_error_handling",
                 "keep_intermediates", "use_pch", "is_standalone")
        spec = dict(zip(names, args))
        spec.update(kwargs)
        module = self.real(*args, **kwargs)
        proxy = _Proxy(self, module, len(self.builds))
        self.builds.append((spec, proxy))
        return proxy


class _Proxy:
    def __init__(self, recorder, module, index):
        object.__setattr__(self, "_recorder", recorder)
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_index", index)

    def __getattr__(self, name):
        target = getattr(self._module, name)
        if not callable(target):
            return target
        recorder, index = self._recorder, self._index

        def recorded(*args, **kwargs):
            result = target(*args, **kwargs)
            recorder.calls.append((index, name, args, kwargs, result))
            return result

        return recorded


def _sources(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def pass_through(recorder, inputs, output):
    """(build index, function, order) when forward(*inputs) made exactly one extension call,
    each argument an input (order: its index) or a constant (order: -1-k, constants[k]), and
    returned that call's result itself; else (None, why)."""
    if len(recorder.calls) != 1:
        return None, (f"its forward made {len(recorder.calls)} calls of load_inline functions, "
                      f"not one")
    index, name, args, kwargs, result = recorder.calls[0]
    listed = _sources(recorder.builds[index][0].get("functions"))
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name not in listed:
        return None, f"its forward calls {name!r}, not a function its load_inline lists"
    if kwargs:
        return None, f"its forward passes keyword arguments to {name}"
    if result is not output:
        return None, f"its forward does more than return {name}'s result"
    order, constants = [], []
    for a in args:
        hit = [i for i, x in enumerate(inputs) if a is x]
        if hit:
            order.append(hit[0])
        elif isinstance(a, (bool, int, float)):
            constants.append(a)
            order.append(-len(constants))
        else:
            return None, f"an argument of {name} is neither an input nor a number"
    return (index, name, order, constants), None


def compile_candidate(spec, function, torch):
    """The candidate's own sources, compiled again with `function` registered as the operator
    reach_native_<digest>::<function>; returns its qualified name or raises Unavailable."""
    from torch.utils import cpp_extension
    cpp = _sources(spec.get("cpp_sources"))
    cuda = _sources(spec.get("cuda_sources"))
    digest = _digest(*cpp, "|", *cuda, function, torch.__version__)
    ns = "reach_native_" + digest
    registration = ("#include <torch/library.h>\n"
                    f"TORCH_LIBRARY({ns}, m) {{ m.def(\"{function}\", &{function}); }}\n")
    folder = os.path.join(build_root(torch), ns)
    os.makedirs(folder, exist_ok=True)
    # A build that failed once fails again (same sources, flags and PyTorch): said, not retried
    # in every run of the workload.
    failed = os.path.join(folder, "reach_failed.txt")
    if os.path.exists(failed):
        with open(failed, encoding="utf-8", errors="replace") as f:
            raise Unavailable(f.read().strip() or f"{function} did not build as an operator")
    cflags = list(spec.get("extra_cflags") or [])
    if not any(f.startswith("-std=") for f in cflags):
        cflags.append("-std=c++17")
    try:
        cpp_extension.load_inline(
            name=ns, cpp_sources=cpp + [registration], cuda_sources=cuda or None,
            extra_cflags=cflags, extra_cuda_cflags=spec.get("extra_cuda_cflags"),
            extra_ldflags=spec.get("extra_ldflags"),
            extra_include_paths=spec.get("extra_include_paths"), build_directory=folder,
            with_cuda=spec.get("with_cuda"), is_python_module=False, verbose=False)
    except Exception as e:
        why = f"{function} did not build as an operator: {_last_line(e)}"
        with open(failed, "w", encoding="utf-8") as f:
            f.write(why + "\n")
        raise Unavailable(why) from None
    return f"{ns}::{function}"
