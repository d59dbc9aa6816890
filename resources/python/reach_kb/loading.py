"""Loading a problem (`Model`, `get_inputs`, `get_init_inputs`) and a candidate (`ModelNew`).

Two styles:
- `kernelbench`: as KernelBench 423217d loads them. The problem is exec'd into a fresh dict; a
  CUDA/load_inline candidate is exec'd into THAT SAME dict (it sees, and can rebind, the problem's
  names), compiled under the file name "<string>"; a Triton candidate is written to a temporary
  `.py` file and imported as module `temp_module`, because `@triton.jit` reads the function's
  source through `inspect`, which needs a real file.
- `reach`: the problem is compiled under its real path (tracebacks and `inspect` work); an exec'd
  candidate gets a COPY of the problem's names, so it can use them but cannot rebind what the
  reference's code looks up; a Triton candidate is imported from its own file.
"""

import importlib.util
import os
import re
import tempfile
import traceback

from .errors import CandidateLoadError, UserError

REQUIRED = ("Model", "get_inputs", "get_init_inputs")
_TRITON_IMPORT = re.compile(r"^\s*(?:import\s+triton\b|from\s+triton\b)", re.M)


def read_source(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise UserError(f"{path}: cannot read: no such file")
    except IsADirectoryError:
        raise UserError(f"{path}: cannot read: is a directory")
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: byte {e.start}: expected UTF-8 Python source")
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror}")


def imports_triton(source):
    return bool(_TRITON_IMPORT.search(source))


def first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0] if text else ""


def describe(exc):
    msg = first_line(exc)
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def line_in(exc, filename):
    """The line of `filename` nearest the raise in `exc`'s traceback (None if it never ran there)."""
    if isinstance(exc, SyntaxError) and exc.filename == filename and exc.lineno:
        return exc.lineno
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb.tb_lineno
        tb = tb.tb_next
    return found


def place(path, line):
    return f"{path}: line {line}: " if line else f"{path}: "


class Problem:
    def __init__(self, path, source, namespace, filename):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.source = source
        self.namespace = namespace
        self.filename = filename  # the name its code was compiled under
        self.Model = namespace["Model"]
        self.get_inputs = namespace["get_inputs"]
        self.get_init_inputs = namespace["get_init_inputs"]

    def call(self, what, fn, *args):
        """Runs problem code; a failure there is the problem's fault (bad input, exit 2)."""
        try:
            return fn(*args)
        except BaseException as e:
            # sys.exit() and KeyboardInterrupt raised by problem code are the problem's too: the
            # job would otherwise end with the worker's exit status and no line on stderr.
            raise UserError(place(self.path, line_in(e, self.filename)) + f"{what} raised {describe(e)}")


def load_problem(path, style):
    source = read_source(path)
    filename = "<string>" if style == "kernelbench" else os.path.abspath(path)
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as e:
        raise UserError(place(path, e.lineno) + f"syntax error: {e.msg}")
    except ValueError as e:
        raise UserError(f"{path}: {first_line(e)}")
    namespace = {}
    try:
        exec(code, namespace)
    except BaseException as e:
        raise UserError(place(path, line_in(e, filename)) + f"running the problem raised {describe(e)}")
    missing = [n for n in REQUIRED if not callable(namespace.get(n))]
    if missing:
        raise UserError(f"{path}: expected a class Model and functions get_inputs() and "
                        f"get_init_inputs(); missing {', '.join(missing)}")
    return Problem(path, source, namespace, filename)


class Candidate:
    def __init__(self, ModelNew, namespace, backend, filename, temp_path=None):
        self.ModelNew = ModelNew
        self.namespace = namespace
        self.backend = backend
        self.filename = filename
        self.temp_path = temp_path

    def cleanup(self):
        if self.temp_path:
            try:
                os.remove(self.temp_path)
            except OSError:
                pass


def choose_backend(source, requested="auto"):
    if requested in ("cuda", "triton"):
        return requested
    return "triton" if imports_triton(source) else "cuda"


def _load_error(path, filename, exc, kind="compilation_error"):
    line = line_in(exc, filename)
    if isinstance(exc, SyntaxError):
        text = place(path, exc.lineno) + f"SyntaxError: {exc.msg}"
    else:
        text = place(path, line) + describe(exc)
    log = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return CandidateLoadError(text, log, kind, exc)


def _exec_candidate(path, source, namespace, filename):
    try:
        code = compile(source, filename, "exec")
    except (SyntaxError, ValueError) as e:
        raise _load_error(path, filename, e)
    try:
        exec(code, namespace)
    except BaseException as e:  # sys.exit() or KeyboardInterrupt at import: the candidate's
        raise _load_error(path, filename, e)
    ModelNew = namespace.get("ModelNew")
    if ModelNew is None:
        raise CandidateLoadError(f"{path}: no ModelNew defined (expected a class ModelNew)", "",
                                 "missing_modelnew")
    return ModelNew


def _import_candidate(path, source, module_name, file_path):
    try:
        spec = importlib.util.spec_from_file_location(module_name, file_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BaseException as e:  # sys.exit() or KeyboardInterrupt at import: the candidate's
        raise _load_error(path, file_path, e)
    if not hasattr(module, "ModelNew"):
        raise CandidateLoadError(f"{path}: no ModelNew defined (expected a class ModelNew)", "",
                                 "missing_modelnew")
    return module.ModelNew, vars(module)


def load_candidate(path, problem, style, backend="auto"):
    """Returns a Candidate, raises CandidateLoadError (a verdict) or UserError (unreadable)."""
    source = read_source(path)
    backend = choose_backend(source, backend)
    if backend == "triton":
        if style == "kernelbench":
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as tmp:
                tmp.write(source)
            try:
                ModelNew, ns = _import_candidate(path, source, "temp_module", tmp.name)
            except CandidateLoadError:
                os.remove(tmp.name)
                raise
            return Candidate(ModelNew, ns, backend, tmp.name, tmp.name)
        file_path = os.path.abspath(path)
        ModelNew, ns = _import_candidate(path, source, "reach_candidate", file_path)
        return Candidate(ModelNew, ns, backend, file_path)
    if style == "kernelbench":
        ns = problem.namespace  # KernelBench's single context dict
        filename = "<string>"
    else:
        ns = dict(problem.namespace)
        filename = os.path.abspath(path)
    return Candidate(_exec_candidate(path, source, ns, filename), ns, backend, filename)
