"""The judge: Reach's verdict on a KernelBench-format candidate, from a process the candidate never
enters (docs/kernelbench.md, "Trust boundary").

Three roles, three processes: reach-verify (the controller) starts this judge; the judge forks
the runner right after `import torch`, before either touches CUDA (runner.py), and never imports
the candidate. The judge draws every input, computes every reference in float64, compares,
checks invariants, keeps the clock, and alone writes the verdict document on its stdout, which
the runner cannot reach (the judge is non-dumpable: no /proc/<pid>/fd, no ptrace; the runner
kept none of its descriptors). Inputs and outputs cross as bytes in shared regions
(sharedmem.py); nothing crosses as a Python object.

Order of a job:
1. models (the precision Model, the float64 one), one draw to learn the inputs' layout and the
   output's shape and dtype; the shared input regions; `hello` to the runner;
2. trusted phase: the runner times the problem's Model (eager, torch.compile) the way it will
   time the candidate; these are the baselines and the clock's calibration;
3. `use candidate`: the runner loads it (a load failure is compile_error);
4. correctness runs, seeds x scales (judgeruns.py);
5. timing: fresh inputs every repetition, every repetition's output sampled, a secret subset
   checked against float64 references afterwards (judgetiming.py);
6. the kernel census (the runner's claim), an audit of torch's attributes (a claim), threads and
   processes (from /proc), then the runner and everything it started are killed.
"""

import math
import os
import random
import threading
import time
import traceback

from . import channel, procwatch, resultcache, runner
from .environment import set_seed, synchronize
from .errors import UserError
from .invariants import Invariants
from .judgeinputs import Checksum, Draw, Layout, SharedInputs
from .judgeruns import add, claims, new_run, sampled, values, where_of
from .judgetiming import SAMPLES_PER_REP, Bench, clock_samples, record, run_loop, secret_seed
from .loading import describe, line_in
from .report import fmt
from .sharedmem import PATTERN, Region
from .tensors import describe_value, dtype_of, is_float, overlaps, reach_cast, bitwise_equal, clone_inputs, upcast
from .thresholds import kernelbench_tolerance
from .variants import SCALE1, apply as apply_variant, job_variants, perturb

KB_SEED = 42
CHECKED_REPS = 10  # timed repetitions checked against a float64 reference afterwards
POOL_SETS = 4  # input sets kept when drawing fresh inputs every repetition would take too long
FRESH_BUDGET_S = 3.0  # the longest fresh drawing may take over one timed loop
LOG_TAIL = 64 << 10
REDRAW_PROBE = 7_000_001  # a seed apart from every correctness seed
RUNNER_ECHO = 256 << 10  # runner output also echoed to the judge's stderr, up to this much


class RunnerLog:
    """The runner's stdout and stderr: the last 64 KiB kept as text for the JSON (never parsed),
    and the first 256 KiB echoed to stderr, so a job killed from outside still leaves it."""

    def __init__(self, fd, echo_fd):
        self.fd = fd
        self.echo_fd = echo_fd
        self.parts = []
        self.size = 0
        self.echoed = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self):
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.parts.append(data)
                self.size += len(data)
                while self.size > LOG_TAIL and len(self.parts) > 1:
                    self.size -= len(self.parts.pop(0))
            if self.echo_fd is not None and self.echoed < RUNNER_ECHO:
                chunk = data[:RUNNER_ECHO - self.echoed]
                self.echoed += len(chunk)
                try:
                    os.write(self.echo_fd, chunk)
                except OSError:
                    pass

    def text(self):
        self.thread.join(timeout=1.0)
        with self.lock:
            data = b"".join(self.parts)[-LOG_TAIL:]
        return data.decode("utf-8", "replace")


class RunnerHandle:
    def __init__(self, pid, chan, log):
        self.pid = pid
        self.chan = chan
        self.log = log
        self.killed_others = 0

    def end(self):
        try:
            self.chan.send({"op": "exit"})
        except Exception:
            pass
        self.chan.close()
        self.killed_others = procwatch.kill_tree(self.pid)


def spawn_runner(worker_dir, echo_fd):
    """Forks the runner. Call right after `import torch`, before anything touches CUDA."""
    judge_end, runner_end = channel.pair()
    log_r, log_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        judge_end.close()
        os.close(log_r)
        runner.child_main(runner_end, log_w, worker_dir)  # never returns
    runner_end.close()
    os.close(log_w)
    return RunnerHandle(pid, channel.Channel(judge_end), RunnerLog(log_r, echo_fd))


class InputSource:
    """Inputs of the repetitions of one timed loop, drawn from the same distributions as the
    correctness runs (a variant chosen at random per repetition, variants.py), under secret
    seeds: fresh every repetition, or, when drawing is too slow to repeat every time, one of a
    pool of sets made new for each use (variants.perturb; a note says so). A repetition's inputs
    can be drawn again exactly (`prepare(r)`), which is how its output is checked afterwards."""

    def __init__(self, judge, calls):
        self.judge = judge
        rng = random.Random(int.from_bytes(os.urandom(8), "little"))
        self.seeds = [secret_seed() for _ in range(calls)]
        self.variants = [rng.choice(judge.variants) for _ in range(calls)]
        self.pool = None
        self.choice = None
        d = judge.draw.typical_seconds()
        if d * calls > FRESH_BUDGET_S:
            k = min(POOL_SETS, calls)
            self.pool = [judge.draw(secret_seed(), SCALE1) for _ in range(k)]
            self.choice = [rng.randrange(k) for _ in range(calls)]
            note = (f"timing: inputs from a pool of {k} sets, each made new for every repetition "
                    f"(every element times its own factor in [0.75, 1.25)), chosen at random "
                    f"(one draw takes {d * 1000:.0f} ms)")
            if note not in judge.notes:
                judge.notes.append(note)

    def prepare(self, r):
        """Repetition r's inputs, in the judge's own memory (nothing shared yet)."""
        torch = self.judge.torch
        v = self.variants[r]
        if self.pool is None:
            return self.judge.draw(self.seeds[r], v)
        base = self.pool[self.choice[r]]
        out = []
        for i, x in enumerate(base):
            if is_float(x):
                x = perturb(torch, x, self.seeds[r] * 64 + i)
                x = apply_variant(torch, x, v, self.judge.args.precision, self.seeds[r] * 64 + 32 + i)
            out.append(x)
        return out

    def load(self, r):
        """Repetition r's inputs in the shared regions (as the runner will see them)."""
        x = self.prepare(r)
        v = self.judge.shared.load(x)
        del x
        return v


class Judge:
    def __init__(self, torch, args, problem, device, prep, res, handle):
        self.torch = torch
        self.args = args
        self.problem = problem
        self.device = device
        self.res = res
        self.notes = res["notes"]
        self.thresholds = prep.thresholds
        self.category = prep.category
        self.raw_init = prep.raw_init
        self.dtype = dtype_of(args.precision)
        self.kb_tol = kernelbench_tolerance(args.precision)
        self.cuda = device.type == "cuda"
        self.handle = handle
        self.chan = handle.chan
        self.checks = []  # every check of every run, aggregated by the verdict
        self.kb_model = None
        self.ref_model = None
        self.ref_dtype = torch.float64
        self.layout = None
        self.shared = None
        self.slot_region = None
        self.slot = None
        self.expected_shape = None
        self.expected_dtype = None
        self.reference_aliases = False
        self.reference_modifies = False
        self.invariants = None
        self.cuda_fault = None
        self.checksum = Checksum(torch)
        self.draw = Draw(torch, problem, device, self.dtype, self.notes, args.precision)
        self.variants = job_variants(args.scales, args.precision, getattr(args, "variants", ["auto"]))
        self.bench = None
        self.timeout_s = max(30.0, float(getattr(args, "call_timeout", 0) or 600.0))
        self.threads_after_load = None
        self.loaded = False
        self.positions = None
        self.trusted_processes = set()
        self.calibration = None  # judgetiming.Calibration, from the eager loop
        self.finite_at_x1 = {}  # seed -> whether the reference was finite on the problem's own draw
        self.flags_region = None

    # ---- models and the layout ---------------------------------------------------------------
    def init_inputs(self):
        return [reach_cast(x, self.device, self.dtype) for x in self.raw_init]

    def _build_model(self):
        torch = self.torch
        with torch.no_grad():
            set_seed(torch, KB_SEED)
            m = self.problem.call("Model(*get_init_inputs())", self.problem.Model, *self.init_inputs())
            return m.to(device=self.device, dtype=self.dtype)

    def _reference_error(self, e):
        line = line_in(e, self.problem.filename)
        where = f"line {line}: " if line else ""
        return UserError(f"{self.problem.path}: {where}Model.forward raised {describe(e)}")

    def reference(self, inputs):
        """The reference output for (precision) `inputs`, float64 where possible. Only the output
        is held afterwards: the float64 inputs are dropped as soon as the model returns."""
        torch = self.torch
        x = [upcast(t, self.ref_dtype) for t in inputs]
        try:
            with torch.no_grad():
                out = self.ref_model(*x)
        except RuntimeError as e:
            if _is_oom(e):
                raise
            if self.ref_dtype == torch.float64 and "Double" in str(e):
                del x
                self.ref_dtype = torch.float32
                self.ref_model = self.ref_model.float()
                self.notes.append(f"reference in float32: an op has no float64 kernel ({describe(e)})")
                return self.reference(inputs)
            raise self._reference_error(e)
        except Exception as e:
            raise self._reference_error(e)
        del x
        if not isinstance(out, torch.Tensor):
            raise UserError(f"{self.problem.path}: Model.forward returned {describe_value(out)}; "
                            f"the oracle checks a single tensor output")
        synchronize(torch, self.device)
        return out

    def learn(self):
        """Models, the inputs' layout and the output's shape and dtype, from one draw."""
        torch = self.torch
        self.kb_model = self._build_model()
        self.ref_model = self._build_model().to(torch.float64)
        self.invariants = Invariants(self.category, self.ref_model, self.notes)
        first = self.draw(self.args.seeds[0], SCALE1)
        self.layout = Layout(torch, first, self.problem.path)
        x = clone_inputs(first)
        try:
            with torch.no_grad():
                y = self.kb_model(*x)
            synchronize(torch, self.device)
        except Exception as e:
            if _is_oom(e):
                raise
            raise self._reference_error(e)
        if not isinstance(y, torch.Tensor):
            raise UserError(f"{self.problem.path}: Model.forward returned {describe_value(y)}; "
                            f"the oracle checks a single tensor output")
        self.expected_dtype = y.dtype
        self.expected_shape = list(y.shape)
        self.reference_aliases = bool(overlaps(y, x))
        self.reference_modifies = any(isinstance(a, torch.Tensor) and not bitwise_equal(a, b)
                                      for a, b in zip(x, first))
        if self.reference_aliases:
            self.notes.append("the problem's Model returns a view of its input: aliasing is not checked")
        if self.reference_modifies:
            self.notes.append("the problem's Model modifies its inputs: the input check is skipped")
        self.out_bytes = y.numel() * y.element_size()
        self.out_numel = y.numel()
        del y, x, first
        self.empty_cache()
        # One more draw, warm this time: what drawing every timed repetition would cost.
        second = self.draw(self.args.seeds[0] + REDRAW_PROBE, SCALE1)
        del second
        self.empty_cache()

    def empty_cache(self):
        if self.cuda:
            self.torch.cuda.empty_cache()

    # ---- the runner --------------------------------------------------------------------------
    def ask(self, msg, fds=(), timeout=None):
        self.chan.send(msg, fds)
        for fd in fds:
            os.close(fd)
        reply, got = self.chan.recv(timeout=timeout or self.timeout_s)
        for fd in got:
            os.close(fd)
        return reply

    def hello(self, env):
        self.shared = SharedInputs(self.torch, self.device, self.layout)
        msg = {"op": "hello", "problem": os.path.abspath(self.problem.path), "precision": self.args.precision,
               "device": str(self.device), "inputs": self.shared.hello_specs(), "env": env}
        fds = []
        if self.cuda:
            # The two words the judge's and the runner's streams meet on (devicesync.py).
            from .devicesync import Flags
            self.flags_region = Region.create(self.torch, self.device, 64, canary=0)
            self.flags_region.data.zero_()
            self.bench.flags = Flags(self.flags_region.data.data_ptr())
            msg["flags"] = self.flags_region.describe()
            fds.append(self.flags_region.export_fd())
        reply = self.ask(msg, fds + self.shared.export_fds())
        if reply.get("op") != "ready":
            if reply.get("problem"):
                raise UserError(reply.get("error") or f"{self.problem.path}: the runner could not load it")
            raise RuntimeError(f"the runner did not start: {reply.get('error')}")

    def new_slot(self):
        self.drop_slot()
        torch = self.torch
        self.slot_region = Region.create(torch, self.device, self.out_bytes)
        self.slot = self.slot_region.view(self.expected_dtype, self.expected_shape)
        reply = self.ask({"op": "slot", "dtype": str(self.expected_dtype).replace("torch.", ""),
                          "shape": self.expected_shape, "region": self.slot_region.describe()},
                         [self.slot_region.export_fd()])
        if reply.get("op") != "slot":
            raise channel.ProtocolError(f"slot: {reply.get('error') or reply.get('op')}")

    def drop_slot(self):
        if self.slot_region is None:
            return
        self.slot = None
        try:
            self.ask({"op": "slot"})
        except (channel.Silent, channel.RunnerGone, channel.ProtocolError):
            pass
        self.slot_region.release()
        self.slot_region = None
        self.empty_cache()

    def use(self, which, **extra):
        return self.ask(dict({"op": "use", "which": which}, **extra))

    # ---- timing --------------------------------------------------------------------------------
    def timed_loop(self, reps, warmup, gather):
        # Room for calls drawn again (an output the judge did not find where it read).
        source = InputSource(self, 2 * (reps + warmup) + 8)
        loop = run_loop(self.torch, self, source, reps, warmup, gather, self.timeout_s)
        return loop, source

    def gather(self):
        """(the slot's elements, secret positions): what every repetition samples. The same for
        the trusted callables as for the candidate, so their clocks are comparable."""
        if self.positions is None:
            torch = self.torch
            n = self.out_numel
            k = min(n, SAMPLES_PER_REP)
            g = torch.Generator(device="cpu")
            g.manual_seed(int.from_bytes(os.urandom(8), "little") & ((1 << 62) - 1))
            idx = torch.randperm(n, generator=g)[:k] if n <= (1 << 24) else torch.randint(0, n, (k,), generator=g)
            self.positions = idx.to(self.device)
        return self.slot.reshape(-1), self.positions


def _is_oom(e):
    return type(e).__name__ == "OutOfMemoryError" or "out of memory" in str(e)
