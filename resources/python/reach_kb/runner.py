"""The runner: the only process that imports the candidate. It runs what the judge asks and answers
with claims (docs/kernelbench.md, "Trust boundary").

It is forked by the judge right after `import torch` (before either touches CUDA), keeps only
its channel to the judge and a log pipe (stdout and stderr both go there; the judge keeps the
last 64 KiB as text and never parses it), and dies with the judge (PR_SET_PDEATHSIG).

Two phases. Before the candidate is loaded the runner is Reach's own code and the problem's:
the judge times the problem's Model (eager, torch.compile) through it, the same way it will time
the candidate, and those numbers are trusted. Once `use candidate` has loaded the candidate,
everything the runner says (its event times, the output's type, whether torch was patched) is a
claim: the judge checks the values it receives in its own memory, keeps its own clock, and reads
threads and child processes from /proc.

Messages (channel.py): hello, slot, use, run, audit, census, exit. See judge.py for the judge's
side.
"""

import os
import sys
import time
import traceback

from . import allocator, channel, procwatch, profiling
from .environment import set_seed, synchronize
from .errors import CandidateLoadError, UserError
from .loading import describe, line_in, load_candidate, load_problem, place
from .sharedmem import Region
from .tensors import dtype_of, reach_cast

LOG_TEXT = 60 << 10  # the longest text a reply carries (a compile log), within the channel's limit
KB_SEED = 42


def child_main(sock, log_fd, worker_dir):
    """In the forked child: become the runner, never return."""
    code = 0
    try:
        procwatch.die_with_parent()
        dropped = procwatch.drop_privileges()
        # The file the judge reports its waits for the GPU in is the judge's, not the
        # candidate's: a runner that claimed to wait would stop the controller's clock of the
        # job's work (core/verify/queueclock.h bounds what that could gain, this removes it).
        os.environ.pop("REACH_QUEUE_FILE", None)
        keep = {0, 1, 2, sock.fileno()}
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False, buffering=1)
        sys.stderr = open(2, "w", closefd=False, buffering=1)
        for n in dropped:
            print(f"runner: {n}", file=sys.stderr)
        Runner(channel.Channel(sock), worker_dir).serve()
    except BaseException:
        try:
            traceback.print_exc()
        except Exception:
            pass
        code = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _cut(text, n=LOG_TEXT):
    text = text or ""
    return text if len(text) <= n else "..." + text[-n:]


def watched_attributes(torch):
    """id() of everything the judge's old in-process checks called, by qualified name."""
    import time as time_module
    spaces = {"torch": torch, "torch.nn.functional": torch.nn.functional, "torch.cuda": torch.cuda,
              "torch.Tensor": torch.Tensor, "torch.nn.Module": torch.nn.Module,
              "torch.cuda.Event": torch.cuda.Event, "time": time_module}
    base = getattr(torch._C, "TensorBase", None) or getattr(torch._C, "_TensorBase", None)
    if base is not None:
        spaces["torch._C.TensorBase"] = base
    import types
    out = {}
    for prefix, space in spaces.items():
        try:
            items = list(vars(space).items())
        except TypeError:
            continue
        for k, v in items:
            out[f"{prefix}.{k}"] = (id(v), isinstance(v, types.ModuleType))
    return out


def patched(before, after, limit=20):
    """Names replaced, removed or added since `before`. A submodule that appeared is an import
    (torch.utils.cpp_extension brings torch._appdirs), not a patch."""
    changed = sorted(k for k in set(before) | set(after)
                     if before.get(k) != after.get(k) and not (k not in before and after[k][1]))
    return changed[:limit], len(changed)


class Runner:
    def __init__(self, chan, worker_dir):
        self.chan = chan
        self.worker_dir = worker_dir
        self.torch = None
        self.device = None
        self.problem = None
        self.inputs = []  # per position: a tensor view of a shared region, or None for a value
        self.regions = []
        self.slot = None
        self.slot_region = None
        self.fn = None
        self.which = None
        self.kb_model = None
        self.model_new = None
        self.cand = None
        self.snapshot = None
        self.dtype = None
        self.flags = None  # devicesync.Flags: the words the judge's and this stream wait on
        self.stream = None  # the stream timed calls run on (the judge's `go` gates it)
        self.locator = None

    # ---- the loop --------------------------------------------------------------------------
    def serve(self):
        while True:
            msg, fds = self.chan.recv(max_fds=channel.MAX_FDS)
            op = msg.get("op")
            try:
                if op == "exit":
                    return
                reply = getattr(self, "_op_" + str(op), None)
                if reply is None:
                    raise ValueError(f"unknown op {op!r}")
                out = reply(msg, fds)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:
                out = {"op": "error", "error": describe(e), "log": _cut(traceback.format_exc(), 8000),
                       "oom": _is_oom(e)}
            self.chan.send(out)

    # ---- set-up (trusted phase) -------------------------------------------------------------
    def _op_hello(self, msg, fds):
        import torch
        self.torch = torch
        for key, path in (msg.get("env") or {}).items():
            if key in ("TORCH_EXTENSIONS_DIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR"):
                os.makedirs(path, exist_ok=True)
                os.environ[key] = path
            elif key == "TORCHINDUCTOR_COMPILE_THREADS":
                os.environ[key] = str(path)
        self.device = torch.device(msg["device"])
        # What Reach itself will import later (the profiler for the census, Dynamo for the
        # torch.compile baseline) is imported now: their imports rebind torch's own attributes
        # (Dynamo wraps torch.manual_seed), which must be in the snapshot the candidate's
        # patches are measured against, not read as the candidate's.
        for name in ("torch._dynamo", "torch.profiler"):
            try:
                __import__(name)
            except Exception:
                pass
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            torch.zeros(1, device=self.device)  # the context, before the shared buffers are mapped
        self.dtype = dtype_of(msg["precision"])
        it = iter(fds)
        if msg.get("flags") is not None:
            from .devicesync import Flags, Locator
            r = Region.attach(torch, self.device, next(it), msg["flags"])
            self.regions.append(r)
            self.flags = Flags(r.data.data_ptr())
            self.stream = torch.cuda.Stream(device=self.device)
            self.locator = Locator()
        for spec in msg["inputs"]:
            if spec["kind"] == "tensor":
                r = Region.attach(torch, self.device, next(it), spec["region"])
                self.regions.append(r)
                self.inputs.append(r.view(getattr(torch, spec["dtype"]), spec["shape"],
                                          spec.get("stride")))
            else:
                self.inputs.append(None)
        try:
            self.problem = load_problem(msg["problem"], "reach")
            with torch.no_grad():
                set_seed(torch, KB_SEED)
                init = [reach_cast(x, self.device, self.dtype) for x in
                        self.problem.call("get_init_inputs()", self.problem.get_init_inputs)]
                set_seed(torch, KB_SEED)
                m = self.problem.call("Model(*get_init_inputs())", self.problem.Model, *init)
                self.kb_model = m.to(device=self.device, dtype=self.dtype)
            synchronize(torch, self.device)
        except UserError as e:
            return {"op": "error", "error": e.line, "problem": True}
        return {"op": "ready", "pid": os.getpid()}

    def _op_slot(self, msg, fds):
        torch = self.torch
        if self.slot_region is not None:
            self.slot = None
            self.slot_region.release()
            self.slot_region = None
        if fds:
            self.slot_region = Region.attach(torch, self.device, fds[0], msg["region"])
            self.slot = self.slot_region.view(getattr(torch, msg["dtype"]), msg["shape"])
        return {"op": "slot", "ok": True}

    def _op_use(self, msg, fds):
        torch = self.torch
        which = msg["which"]
        if which == "eager":
            self.fn = self.kb_model
        elif which == "compile":
            try:
                import torch._inductor.config as inductor_config
                inductor_config.compile_threads = 1  # no pool of compile workers left behind
            except Exception:
                pass
            torch._dynamo.reset()
            self.fn = torch.compile(self.kb_model)
        elif which == "candidate":
            return self._load_candidate(msg)
        else:
            raise ValueError(f"unknown callable {which!r}")
        self.which = which
        return {"op": "using", "ok": True}

    # ---- the candidate (from here on, everything said is a claim) ----------------------------
    def _load_candidate(self, msg):
        torch = self.torch
        self.snapshot = watched_attributes(torch)
        self.fn = None
        self.which = "candidate"
        os.environ["TORCH_USE_CUDA_DSA"] = "1"  # as KernelBench: the same flags, the same builds
        path = msg["candidate"]
        try:
            self.cand = load_candidate(path, self.problem, "reach")
        except CandidateLoadError as e:
            return {"op": "using", "ok": False, "line": e.line, "log": _cut(e.log)}
        try:
            with torch.no_grad():
                set_seed(torch, KB_SEED)
                init = [reach_cast(x, self.device, self.dtype) for x in
                        self.problem.call("get_init_inputs()", self.problem.get_init_inputs)]
                set_seed(torch, KB_SEED)
                m = self.cand.ModelNew(*init)
                m = m.to(device=self.device, dtype=self.dtype)
            synchronize(torch, self.device)
        except BaseException as e:
            line = place(path, line_in(e, self.cand.filename)) + f"ModelNew(*get_init_inputs()) raised {describe(e)}"
            return {"op": "using", "ok": False, "line": line, "oom": _is_oom(e),
                    "log": _cut("".join(traceback.format_exception(type(e), e, e.__traceback__)))}
        self.model_new = m
        self.fn = m
        names, n = patched(self.snapshot, watched_attributes(torch))
        return {"op": "using", "ok": True, "backend": self.cand.backend, "patched": names,
                "patched_count": n}

    def _args(self, msg):
        values = msg.get("values") or []
        args = []
        vi = 0
        for t in self.inputs:
            if t is None:
                args.append(values[vi] if vi < len(values) else None)
                vi += 1
            else:
                args.append(t)
        return args

    def _describe(self, out, args, reply):
        torch = self.torch
        reply["type"] = type(out).__name__
        if isinstance(out, torch.Tensor):
            reply["exact_tensor"] = type(out) is torch.Tensor
            reply["shape"] = list(out.shape)
            reply["dtype"] = str(out.dtype).replace("torch.", "")
            reply["aliases"] = _aliases(torch, out, [a for a in args if isinstance(a, torch.Tensor)])

    def _fits_slot(self, out):
        torch = self.torch
        return (self.slot is not None and isinstance(out, torch.Tensor)
                and tuple(out.shape) == tuple(self.slot.shape) and out.dtype == self.slot.dtype)

    def _timed(self, msg):
        """A timed call (judgetiming.py). CUDA: on the timing stream, behind the judge's `go`,
        the call between this process's events (a claim), the output left where it is when the
        judge can read it in place (its IPC location), else copied into the slot inside the
        window, then `done`. CPU: the call and the copy into the slot between two host clock
        reads (a claim)."""
        torch = self.torch
        args = self._args(msg)
        reply = {"op": "ran", "id": msg.get("id"), "e_us": None, "type": None, "exact_tensor": False,
                 "shape": None, "dtype": None, "copied": False, "location": None, "aliases": [],
                 "error": None, "cuda_fault": False, "oom": False}
        out = None
        cuda = self.device.type == "cuda"
        try:
            with torch.no_grad():
                if cuda:
                    from .devicesync import Flags
                    token = int(msg["token"])
                    s = self.stream
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    with torch.cuda.stream(s):
                        self.flags.wait(s, Flags.GO, token)
                        try:
                            start.record(s)
                            out = self.fn(*args)
                            self._describe(out, args, reply)
                            loc = None
                            if (reply["exact_tensor"] and self._fits_slot(out) and out.is_cuda
                                    and out.is_contiguous() and not msg.get("copy")):
                                loc = self.locator.locate(out.data_ptr())
                            if loc is None and self._fits_slot(out):
                                self.slot.copy_(out)
                                reply["copied"] = True
                            reply["location"] = loc
                            end.record(s)
                        finally:
                            # Always: the judge's stream waits for it.
                            self.flags.write(s, Flags.DONE, token)
                    torch.cuda.synchronize(self.device)
                    reply["e_us"] = start.elapsed_time(end) * 1000.0
                else:
                    t0 = time.perf_counter()
                    out = self.fn(*args)
                    self._describe(out, args, reply)
                    if self._fits_slot(out):
                        self.slot.copy_(out)
                        reply["copied"] = True
                    t1 = time.perf_counter()
                    reply["e_us"] = (t1 - t0) * 1e6
        except BaseException as e:  # SystemExit and KeyboardInterrupt from forward too
            _failed(reply, e)
        out = None
        return reply

    def _op_run(self, msg, fds):
        torch = self.torch
        if msg.get("timed"):
            return self._timed(msg)
        args = self._args(msg)
        cuda = self.device.type == "cuda"
        fill = None
        fill_bytes = int(msg.get("fill") or 0)
        if cuda and fill_bytes:
            fill = allocator.fill_free_blocks(torch, self.device, fill_bytes)
        reply = {"op": "ran", "id": msg.get("id"), "e_us": None, "type": None, "exact_tensor": False,
                 "shape": None, "dtype": None, "copied": False, "aliases": [], "error": None,
                 "cuda_fault": False, "oom": False, "written_measured": None}
        out = None
        try:
            with torch.no_grad():
                if cuda:
                    start = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    start.record()
                    out = self.fn(*args)
                    end.record()
                else:
                    t0 = time.perf_counter()
                    out = self.fn(*args)
                    t1 = time.perf_counter()
                reply["type"] = type(out).__name__
                if isinstance(out, torch.Tensor):
                    reply["exact_tensor"] = type(out) is torch.Tensor
                    reply["shape"] = list(out.shape)
                    reply["dtype"] = str(out.dtype).replace("torch.", "")
                    reply["aliases"] = _aliases(torch, out, [a for a in args if isinstance(a, torch.Tensor)])
                    if cuda:
                        # Every stream done before the output is handed over: work a candidate
                        # left on a stream of its own is judged on its values, and its time
                        # shows on the judge's clock (the events on this stream miss it).
                        torch.cuda.synchronize(self.device)
                    if fill is not None:
                        reply["written_measured"] = allocator.unwritten_mask(torch, out, fill) is not None
                    if (self.slot is not None and tuple(out.shape) == tuple(self.slot.shape)
                            and out.dtype == self.slot.dtype):
                        self.slot.copy_(out)
                        reply["copied"] = True
                if cuda:
                    torch.cuda.synchronize(self.device)
                    reply["e_us"] = start.elapsed_time(end) * 1000.0
                else:
                    reply["e_us"] = (t1 - t0) * 1e6
        except BaseException as e:  # SystemExit and KeyboardInterrupt from forward too
            _failed(reply, e)
        out = None
        if cuda and msg.get("release"):
            self._release()
        return reply

    def _release(self):
        """Frees the allocator's cached segments, and forgets their IPC handles: a new segment
        at a freed one's address is another allocation, whose handle is another (a stale one
        did not open in the judge, which then had every output copied: measured on the H200)."""
        self.torch.cuda.empty_cache()
        if self.locator is not None:
            self.locator.handles.clear()

    def _op_audit(self, msg, fds):
        names, n = ([], 0)
        if self.snapshot is not None:
            names, n = patched(self.snapshot, watched_attributes(self.torch))
        return {"op": "audit", "patched": names, "patched_count": n, "max_reserved": self._reserved()}

    def _reserved(self):
        if self.device is None or self.device.type != "cuda":
            return None
        return int(self.torch.cuda.max_memory_reserved(self.device))

    def _op_census(self, msg, fds):
        torch = self.torch
        args = [t if t is not None else v for t, v in zip(self.inputs, msg.get("values") or [None] * len(self.inputs))]
        counts = profiling.kernels_of_call(torch, self.fn, args, self.device)
        source = ""
        try:
            with open(msg["candidate"], "r", encoding="utf-8") as f:
                source = f.read()
        except (OSError, UnicodeDecodeError, KeyError):
            pass
        own = profiling.own_kernel_names(source, self.cand.namespace if self.cand else None)
        # Names are cut so the answer fits one message.
        kernels = {k[:2000]: int(v) for k, v in list(counts.items())[:50]}
        return {"op": "census", "kernels": kernels, "own": [o[:200] for o in own[:100]]}

    def _op_release(self, msg, fds):
        if self.device.type == "cuda":
            self._release()
        return {"op": "released"}


def _failed(reply, e):
    """What a call that raised answers (forward's exception, an out-of-memory, a CUDA fault)."""
    reply["error"] = describe(e)
    reply["oom"] = _is_oom(e)
    reply["cuda_fault"] = "CUDA error" in str(e) or type(e).__name__ == "AcceleratorError"
    reply["log"] = _cut(traceback.format_exc(), 8000)


def _aliases(torch, out, tensors):
    from .tensors import overlaps
    try:
        return overlaps(out, tensors)
    except Exception:
        return []


def _is_oom(e):
    return type(e).__name__ == "OutOfMemoryError" or "out of memory" in str(e)
