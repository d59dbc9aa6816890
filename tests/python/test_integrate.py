"""reach_integrate (resources/python/reach_integrate): what decides which calls a verified
candidate replaces."""

import os
import sys
import unittest

from workerutil import REPO, needs_torch

DATA = os.path.join(REPO, "tests", "data", "integrate")


@needs_torch
class Signature(unittest.TestCase):
    def learn(self, path, operator):
        from reach_integrate import substitute
        from reach_kb import loading
        w = substitute.Winner.__new__(substitute.Winner)
        w.problem = loading.load_problem(path, "reach")
        w.operator, w.problem_path = operator, path
        w._learn_signature()
        return w

    def live(self, fn, name):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from reach_integrate import substitute
        seen = []

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if func._schema.name == name:
                    seen.append(substitute.signature(func, args, kwargs))
                return func(*args, **(kwargs or {}))

        with torch.no_grad(), Watch():
            fn()
        return seen

    def test_a_module_call_with_trailing_defaults_has_the_problems_signature(self):
        # The problem passes every argument; nn.EmbeddingBag leaves the trailing defaults out.
        # On the H200 the first integration of DLRM substituted nothing for this reason.
        import torch
        w = self.learn(os.path.join(DATA, "embedding_bag_small.py"), "aten::_embedding_bag")
        emb = torch.nn.EmbeddingBag(1000, 16, mode="sum")
        idx = torch.randint(0, 1000, (256,))
        seen = self.live(lambda: emb(idx, torch.arange(32) * 8), "aten::_embedding_bag")
        self.assertEqual(seen, [w.signature])
        self.assertEqual(w.paths, [("args", 0), ("args", 1), ("args", 2)])
        # Another bag size is another signature, and mean another mode.
        seen = self.live(lambda: emb(idx, torch.arange(64) * 4), "aten::_embedding_bag")
        self.assertNotEqual(seen, [w.signature])
        mean = torch.nn.EmbeddingBag(1000, 16, mode="mean")
        seen = self.live(lambda: mean(idx, torch.arange(32) * 8), "aten::_embedding_bag")
        self.assertNotEqual(seen, [w.signature])

    def test_layout_is_part_of_the_signature(self):
        from reach_integrate import substitute
        import torch
        x = torch.randn(2, 3, 4, 5)
        op = torch.ops.aten.clamp_min.default
        a = substitute.signature(op, (x, 0), {})
        b = substitute.signature(op, (x.contiguous(memory_format=torch.channels_last), 0), {})
        c = substitute.signature(op, (x, 0.0), {})
        self.assertNotEqual(a, b)
        self.assertEqual(a, c)  # 0 and 0.0 are the same clamp


if __name__ == "__main__":
    unittest.main()


# Runs in a child process: the torch.library kernels a Substitution registers stay registered
# for the rest of the process that made them.
# The child's start: the plan (argv 2) with its files' digests, installed on the host path of
# argv 3; `phase` is the session's.
_INSTALL = r'''
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from reach_integrate import substitute
plan = json.loads(sys.argv[2])
for p in plan["problems"]:
    for k in ("problem", "candidate"):
        p[k + "_sha256"] = substitute.digest(p[k])
phase = ["warmup"]
sub = substitute.Substitution(plan, "cpu", sys.argv[1], lambda: phase[0], host_path=sys.argv[3])
'''

_SUBSTITUTE = _INSTALL + r'''
out = {}
torch.manual_seed(0)
with torch.no_grad():
    # In place, at the verified signature and at another.
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    want = x + y
    r = x.add_(y)
    out["add_in_place"] = bool(torch.equal(x, want)) and r is x
    z = torch.randn(4, 16)
    w = torch.randn(4, 16)
    want2 = z + w
    z.add_(w)
    out["add_other_signature"] = bool(torch.equal(z, want2))
    # Several outputs: eval batch norm, the first computed by the candidate, the rest allocated.
    bn = torch.randn(4, 6, 5, 5)
    stats = [torch.randn(6), torch.randn(6), torch.randn(6), torch.rand(6) + 0.5]
    phase[0] = "profiled"
    sub.phase_changed("profiled")
    got = torch.nn.functional.batch_norm(bn, stats[2], stats[3], stats[0], stats[1], False, 0.1, 1e-5)
    ref = (bn - stats[2].view(1, -1, 1, 1)) / torch.sqrt(stats[3].view(1, -1, 1, 1) + 1e-5) \
        * stats[0].view(1, -1, 1, 1) + stats[1].view(1, -1, 1, 1)
    out["batch_norm_close"] = bool(torch.allclose(got, ref, atol=1e-5))
    # Measured calls past the first, not checked: on the native path the C++ override drives
    # the candidate itself, the write-back and the allocated outputs included.
    again = torch.ops.aten.native_batch_norm.default(bn, stats[0], stats[1], stats[2], stats[3],
                                                      False, 0.1, 1e-5)
    out["batch_norm_again_close"] = bool(torch.allclose(again[0], ref, atol=1e-5))
    out["batch_norm_again_outputs"] = [list(t.shape) for t in again]
    x2, y2 = torch.randn(8, 16), torch.randn(8, 16)
    want3 = x2 + y2
    r2 = x2.add_(y2)
    out["add_in_place_measured"] = bool(torch.equal(x2, want3)) and r2 is x2
out.update(sub.report())
print(json.dumps(out))
'''


def _write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def _run_script(script, plan, *args):
    """Runs one of the scripts above in a child (its torch.library or native kernels stay
    registered for the rest of the process that made them); its last line, parsed."""
    import json
    import subprocess
    pydir = os.path.join(REPO, "resources", "python")
    p = subprocess.run([sys.executable, "-c", script, pydir, json.dumps(plan), *args],
                       capture_output=True, text=True, timeout=600)
    return p.returncode, p.stderr, (json.loads(p.stdout.strip().splitlines()[-1])
                                    if p.returncode == 0 else None)


@needs_torch
class Substitution(unittest.TestCase):
    def test_in_place_written_back_and_extra_outputs_allocated(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            def write(name, text):
                return _write(tmp, name, text)
            head = "import torch\nimport torch.nn as nn\n\n\nclass "
            add_p = write("add_problem.py", head + (
                "Model(nn.Module):\n    def forward(self, x0, x1):\n"
                "        return torch.ops.aten.add.Tensor(x0, x1, alpha=1)\n\n\n"
                "def get_inputs():\n    return [torch.randn(8, 16), torch.randn(8, 16)]\n\n\n"
                "def get_init_inputs():\n    return []\n"))
            add_c = write("add_candidate.py", head + (
                "ModelNew(nn.Module):\n    def forward(self, x0, x1):\n"
                "        return torch.add(x1, x0)\n"))
            bn_p = write("bn_problem.py", head + (
                "Model(nn.Module):\n    def forward(self, x0, x1, x2, x3, x4):\n"
                "        return torch.ops.aten.native_batch_norm.default(\n"
                "            x0, x1, x2, x3, x4, False, 0.1, 1e-05)[0]\n\n\n"
                "def get_inputs():\n    return [torch.randn(4, 6, 5, 5)] + "
                "[torch.randn(6) for _ in range(4)]\n\n\n"
                "def get_init_inputs():\n    return []\n"))
            bn_c = write("bn_candidate.py", head + (
                "ModelNew(nn.Module):\n    def forward(self, x, w, b, mean, var):\n"
                "        s = (w / torch.sqrt(var + 1e-5)).view(1, -1, 1, 1)\n"
                "        return x * s + (b - mean * s.view(-1)).view(1, -1, 1, 1)\n"))
            plan = {"problems": [
                {"name": "add_", "operator": "aten::add_", "problem": add_p, "candidate": add_c},
                {"name": "bn", "operator": "aten::native_batch_norm", "problem": bn_p,
                 "candidate": bn_c}]}
            # Both host paths (docs/integration.md, "The host path"); the native one is built
            # once per build tree when ctest says where (REACH_TORCH_EXTENSIONS_DIR).
            for host_path in ("python", "native"):
                with self.subTest(host_path=host_path):
                    status, err, r = _run_script(_SUBSTITUTE, plan, host_path)
                    self.assertEqual(status, 0, err[-3000:])
                    self._check(r, host_path)

    def _check(self, r, host_path):
        self.assertEqual(r["host_path"], host_path, r["host_path_why"])
        self.assertTrue(r["add_in_place"])
        self.assertTrue(r["add_other_signature"])
        self.assertTrue(r["batch_norm_close"])
        self.assertTrue(r["batch_norm_again_close"])
        # The statistics as PyTorch's CPU kernel returns them in eval: empty (their layouts are
        # learnt from its output on the checked call).
        self.assertEqual(r["batch_norm_again_outputs"], [[4, 6, 5, 5], [0], [0]])
        self.assertTrue(r["add_in_place_measured"])
        by = {w["name"]: w for w in r["problems"]}
        self.assertEqual(by["add_"]["substituted_warmup"], 1)  # the [4, 16] call fell through
        self.assertEqual(by["add_"]["substituted"], 1)
        self.assertTrue(by["add_"]["in_place_written_back"])
        self.assertEqual(by["add_"]["checked"], 1)
        self.assertEqual(by["bn"]["substituted"], 2)
        self.assertEqual(by["bn"]["checked"], 1)  # its first call is checked, measured or not
        self.assertEqual(by["bn"]["outputs_not_computed"], 2)  # save_mean, save_invstd
        self.assertEqual(r["fell_through"]["aten::add_.Tensor"]["calls"], 1)
        if host_path == "native":  # the unchecked measured calls ran from C++
            self.assertEqual(by["bn"]["calls_from_cpp"]["profiled"], 1)
            self.assertEqual(by["add_"]["calls_from_cpp"]["profiled"], 1)


# Two load_inline candidates the native path must leave to Python, each saying why: one whose
# forward does more than return its function's result, one whose function PyTorch cannot
# register as an operator (an `int` parameter). Both still replace their calls, correctly.
_NOT_NATIVE_EXT = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ext = load_inline(name="reach_test_not_native", cpp_sources=[
    "torch::Tensor relu_ok(torch::Tensor x) { return at::clamp_min(x, 0); }\n"
    "torch::Tensor relu_int(torch::Tensor x, int low) { return at::clamp_min(x, low); }"],
    functions=["relu_ok", "relu_int"], verbose=False)
'''

_NOT_NATIVE = _INSTALL + r'''
out = {"right": []}
with torch.no_grad():
    for step in range(3):
        if step == 1:
            phase[0] = "profiled"
            sub.phase_changed("profiled")
        for shape in ((8, 16), (8, 32)):
            x = torch.randn(*shape)
            out["right"].append(bool(torch.equal(torch.clamp_min(x, 0), x.clamp(min=0))))
out.update(sub.report())
print(json.dumps(out))
'''


@needs_torch
class NotNative(unittest.TestCase):
    def test_a_candidate_the_native_path_cannot_call_says_why_and_still_runs(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            def write(name, text):
                return _write(tmp, name, text)
            problems = {}
            for cols in (16, 32):
                problems[cols] = write(f"p{cols}.py", (
                    "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                    "    def forward(self, x0):\n"
                    "        return torch.ops.aten.clamp_min.default(x0, 0)\n\n\n"
                    f"def get_inputs():\n    return [torch.randn(8, {cols})]\n\n\n"
                    "def get_init_inputs():\n    return []\n"))
            more = write("more.py", _NOT_NATIVE_EXT + (
                "\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
                "        return ext.relu_ok(x) * 1\n"))
            typed = write("typed.py", _NOT_NATIVE_EXT + (
                "\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n"
                "        return ext.relu_int(x, 0)\n"))
            plan = {"problems": [
                {"name": "more", "operator": "aten::clamp_min", "problem": problems[16],
                 "candidate": more},
                {"name": "typed", "operator": "aten::clamp_min", "problem": problems[32],
                 "candidate": typed}]}
            status, err, r = _run_script(_NOT_NATIVE, plan, "native")
            self.assertEqual(status, 0, err[-3000:])
        self.assertEqual(r["host_path"], "native", r["host_path_why"])
        self.assertEqual(r["right"], [True] * 6)
        by = {w["name"]: w for w in r["problems"]}
        self.assertFalse(by["more"]["native"])
        self.assertIn("does more than return relu_ok", by["more"]["native_why"])
        self.assertFalse(by["typed"]["native"])
        self.assertIn("relu_int did not build as an operator", by["typed"]["native_why"])
        for name in ("more", "typed"):  # checked in the warm-up; the 2 measured calls from C++
            self.assertEqual(by[name]["substituted"], 2, by[name])
            self.assertEqual(by[name]["checked"], 1)
            self.assertEqual(by[name]["calls_from_cpp"]["profiled"], 2, by[name])


# The native module refusing a winner's schema (here: every key): the run takes the Python path
# for all its overrides and says why, and the calls are still substituted.
_FALLBACK = r'''
import json, sys, torch
sys.path.insert(0, sys.argv[1])
from reach_integrate import native, substitute
real = native.load()


class Refusing:
    def __getattr__(self, name):
        return getattr(real, name)

    def key_of(self, *args):
        raise RuntimeError("no schema for it")


native.load = lambda: Refusing()
plan = json.loads(sys.argv[2])
for p in plan["problems"]:
    for k in ("problem", "candidate"):
        p[k + "_sha256"] = substitute.digest(p[k])
sub = substitute.Substitution(plan, "cpu", sys.argv[1], lambda: "warmup", host_path="native")
x = torch.randn(8, 16)
with torch.no_grad():
    right = bool(torch.equal(torch.clamp_min(x, 0), x.clamp(min=0)))
out = {"right": right}
out.update(sub.report())
print(json.dumps(out))
'''


@needs_torch
class NativeFallback(unittest.TestCase):
    def test_a_schema_the_native_side_refuses_puts_the_run_on_the_python_path(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            problem = _write(tmp, "p.py", (
                "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                "    def forward(self, x0):\n"
                "        return torch.ops.aten.clamp_min.default(x0, 0)\n\n\n"
                "def get_inputs():\n    return [torch.randn(8, 16)]\n\n\n"
                "def get_init_inputs():\n    return []\n"))
            candidate = _write(tmp, "c.py", (
                "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                "    def forward(self, x):\n        return torch.clamp(x, min=0)\n"))
            plan = {"problems": [{"name": "c", "operator": "aten::clamp_min",
                                  "problem": problem, "candidate": candidate}]}
            status, err, r = _run_script(_FALLBACK, plan)
            self.assertEqual(status, 0, err[-3000:])
        self.assertTrue(r["right"])
        self.assertEqual(r["host_path"], "python")
        self.assertIn("could not be installed: RuntimeError: no schema for it", r["host_path_why"])
        self.assertEqual(r["problems"][0]["substituted_warmup"], 1)
        self.assertEqual(r["problems"][0]["checked"], 1)


class Steps(unittest.TestCase):
    """The order of a run's steps: warm-up (checked), wall clock (no profiler), profiled."""

    def test_the_wall_clock_steps_run_between_the_warmup_and_the_profiler(self):
        from reach_integrate import steps

        class NoTorch:
            @staticmethod
            def is_inference_mode_enabled():
                return False

        seen = []
        session = steps.Session(NoTorch, "cpu", 2, 3, lambda: seen.append("start"),
                                lambda: seen.append("step"), lambda: seen.append("finish"),
                                wall_steps=2)
        session.begin()
        phases = []
        with self.assertRaises(steps.Finished):
            for _ in range(100):
                phases.append(session.phase())
                session.step()
        self.assertEqual(phases, ["warmup", "warmup", "wall", "wall",
                                  "profiled", "profiled", "profiled"])
        self.assertEqual(len(session.wall_unprofiled_us), 2)
        self.assertEqual(len(session.wall_us), 3)
        self.assertEqual(seen, ["start", "step", "step", "step", "finish"])
        self.assertEqual(session.count, 7)
        with self.assertRaises(steps.Finished):  # a workload that swallowed Finished
            session.step()

    def test_without_wall_steps_the_profiler_starts_after_the_warmup(self):
        from reach_integrate import steps

        class NoTorch:
            pass

        seen = []
        session = steps.Session(NoTorch, "cpu", 0, 2, lambda: seen.append("start"),
                                lambda: None, lambda: seen.append("finish"))
        session.begin()
        self.assertEqual(session.phase(), "profiled")
        session.step()
        with self.assertRaises(steps.Finished):
            session.step()
        self.assertEqual((seen, session.wall_unprofiled_us, len(session.wall_us)),
                         (["start", "finish"], [], 2))


@needs_torch
class Overhead(unittest.TestCase):
    """scripts/integrate_overhead.py, the per-call host cost figure of docs/integration.md, runs
    against the module as it is (it broke once when the module's phase API changed)."""

    def test_it_reports_every_figure(self):
        import json
        import subprocess
        script = os.path.join(REPO, "scripts", "integrate_overhead.py")
        out = subprocess.run([sys.executable, script, "--calls", "300"], capture_output=True,
                             text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        doc = json.loads(out.stdout.strip().splitlines()[-1])
        for key in ("plain_us", "candidate_alone_us"):
            self.assertGreater(doc[key], 0, key)
        for path in ("python", "native", "native_native_candidate"):
            self.assertEqual(doc[path]["ran"], path.split("_")[0], doc[path]["why"])
            for key in ("fall_through_us", "substituted_us"):
                self.assertGreater(doc[path][key], 0, (path, key))
        self.assertTrue(doc["native_native_candidate"]["candidate_native"])
