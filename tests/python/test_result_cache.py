"""What a re-verify reuses (resources/python/reach_kb/resultcache.py): KernelBench's verdict before
PyTorch is imported, the baselines' times, and nothing of Reach's own checks."""

import json
import os
import shutil
import tempfile
import unittest

import workerutil
from workerutil import WorkerCase, candidate, kb, needs_torch, problem, reach

from reach_kb import resultcache


def fresh_run(args):
    """One more run of the same job (run_worker memoizes by argument list)."""
    return workerutil._run(("fork", tuple(str(a) for a in args)))


class Store(unittest.TestCase):
    def test_round_trip_and_bad_entries(self):
        with tempfile.TemporaryDirectory() as d:
            k = resultcache.key("kernelbench", {"a": 1})
            self.assertIsNone(resultcache.load(d, "kernelbench", k))
            resultcache.store(d, "kernelbench", k, {"correctness": True})
            entry = resultcache.load(d, "kernelbench", k)
            self.assertEqual(entry["value"], {"correctness": True})
            self.assertRegex(entry["measured_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
            # A truncated entry (a worker killed mid-write cannot leave one, but a disk can) is a miss.
            path = resultcache._path(d, "kernelbench", k)
            with open(path, "w") as f:
                f.write('{"key": "')
            self.assertIsNone(resultcache.load(d, "kernelbench", k))
            # An entry stored under another key (a renamed file) is a miss too.
            with open(path, "w") as f:
                json.dump({"key": "other", "value": 1, "measured_at": "x"}, f)
            self.assertIsNone(resultcache.load(d, "kernelbench", k))
            self.assertIsNone(resultcache.load("", "kernelbench", k))

    def test_key_depends_on_kind_parts_and_stack(self):
        a = resultcache.key("kernelbench", {"p": 1})
        self.assertNotEqual(a, resultcache.key("kernelbench", {"p": 2}))
        self.assertNotEqual(a, resultcache.key("baselines", {"p": 1}))
        self.assertEqual(a, resultcache.key("kernelbench", {"p": 1}))
        stack = resultcache.stack_key()
        self.assertEqual(len(stack["worker"]), 64)  # the worker's own code is part of every key


@needs_torch
class Reuse(WorkerCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.cache = os.path.join(self.tmp, "cache")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_ok(self, args):
        r = fresh_run(args)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIsNotNone(r.json, r.describe())
        return r.json

    def test_kernelbench_verdict_is_reused_before_torch_is_imported(self):
        args = kb("23_Softmax", "softmax_chunked_1024", "--cache-dir", self.cache)
        first = self.run_ok(args)
        self.assertNotIn("reused", first)
        self.assertIn("import_torch", first["phase_seconds"])
        second = self.run_ok(args)
        self.assertIn("reused", second)
        self.assertNotIn("import_torch", second["phase_seconds"])  # PyTorch never imported
        for field in ("correctness", "trials_passed", "trial_seeds", "max_difference", "tolerance"):
            self.assertEqual(second[field], first[field], field)
        # --fresh measures again (and refreshes the entry).
        third = self.run_ok(args + ("--fresh",))
        self.assertNotIn("reused", third)
        self.assertIn("import_torch", third["phase_seconds"])

    def test_another_candidate_or_option_is_not_reused(self):
        self.run_ok(kb("add_const", "add_correct", "--cache-dir", self.cache))
        changed = os.path.join(self.tmp, "add_correct.py")
        with open(candidate("add_correct"), encoding="utf-8") as f:
            text = f.read()
        with open(changed, "w", encoding="utf-8") as f:
            f.write(text + "\n# one byte more than the reused one\n")
        r = self.run_ok(("kernelbench", "--problem", problem("add_const"), "--candidate", changed,
                         "--device", "cpu", "--cache-dir", self.cache))
        self.assertNotIn("reused", r)
        r = self.run_ok(kb("add_const", "add_correct", "--cache-dir", self.cache, "--tolerance", "0.01"))
        self.assertNotIn("reused", r)
        r = self.run_ok(kb("add_const", "add_correct", "--cache-dir", self.cache))
        self.assertIn("reused", r)

    def test_a_failing_verdict_is_reused_as_it_was(self):
        args = kb("add_const", "add_sign_error", "--cache-dir", self.cache)
        first = self.run_ok(args)
        self.assertFalse(first["correctness"])
        second = self.run_ok(args)
        self.assertIn("reused", second)
        self.assertFalse(second["correctness"])

    def test_baselines_are_reused_the_checks_are_not(self):
        args = reach("add_const", "add_correct", "--cache-dir", self.cache, "--seeds", "1",
                     "--scales", "1", "--reps", "5", "--warmup", "1", "--input-sets", "2")
        first = self.run_ok(args)
        eager = [b for b in first["baselines"] if b["kind"] == "eager"][0]
        self.assertNotIn("reused", eager)
        self.assertGreater(eager["us"], 0)
        second = self.run_ok(args)
        again = [b for b in second["baselines"] if b["kind"] == "eager"][0]
        self.assertIn("reused", again)
        self.assertEqual(again["us"], eager["us"])
        self.assertTrue(any(n.startswith("baselines: eager and torch.compile times reused") for n in second["notes"]))
        # Reach's own checks and the candidate's timing ran again.
        self.assertEqual(len(second["runs"]), len(first["runs"]))
        self.assertIsNotNone(second["timing"])
        self.assertNotIn("reused", second["timing"])
        # Another timing protocol is another entry.
        other = self.run_ok(args[:-2] + ("--input-sets", "3"))
        self.assertNotIn("reused", [b for b in other["baselines"] if b["kind"] == "eager"][0])
        fresh = self.run_ok(args + ("--fresh",))
        self.assertNotIn("reused", [b for b in fresh["baselines"] if b["kind"] == "eager"][0])


if __name__ == "__main__":
    unittest.main()
