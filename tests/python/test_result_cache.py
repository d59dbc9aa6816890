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
    def test_lookup_takes_only_well_formed_entries_of_its_key(self):
        k = resultcache.key("kernelbench", {"a": 1})
        good = {"key": k, "kind": "kernelbench", "measured_at": "2026-12-03T10:00:00Z",
                "value": {"correctness": True}}
        self.assertEqual(resultcache.lookup({"kernelbench": {k: good}}, "kernelbench", k)["value"],
                         {"correctness": True})
        self.assertIsNone(resultcache.lookup({}, "kernelbench", k))
        self.assertIsNone(resultcache.lookup({"kernelbench": {k: dict(good, key="other")}}, "kernelbench", k))
        self.assertIsNone(resultcache.lookup({"kernelbench": {k: {"key": k}}}, "kernelbench", k))
        self.assertIsNone(resultcache.lookup({"kernelbench": {k: good}}, "baselines", k))
        self.assertIsNone(resultcache.lookup({"kernelbench": [good]}, "kernelbench", k))

    def test_read_entries_never_fails_a_job(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write('{"entries": ')
            self.assertEqual(resultcache.read_entries(bad), {})
            self.assertEqual(resultcache.read_entries(os.path.join(d, "missing.json")), {})
            self.assertEqual(resultcache.read_entries(None), {})
            ok = os.path.join(d, "ok.json")
            with open(ok, "w") as f:
                json.dump({"entries": {"census": {}}}, f)
            self.assertEqual(resultcache.read_entries(ok), {"census": {}})

    def test_to_store_is_what_the_controller_files(self):
        e = resultcache.to_store("baselines", "ab" * 32, [1])
        self.assertEqual((e["kind"], e["key"], e["value"]), ("baselines", "ab" * 32, [1]))
        self.assertRegex(e["measured_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_key_depends_on_kind_parts_and_stack(self):
        a = resultcache.key("kernelbench", {"p": 1})
        self.assertNotEqual(a, resultcache.key("kernelbench", {"p": 2}))
        self.assertNotEqual(a, resultcache.key("baselines", {"p": 1}))
        self.assertEqual(a, resultcache.key("kernelbench", {"p": 1}))
        stack = resultcache.stack_key()
        self.assertEqual(len(stack["worker"]), 64)  # the worker's own code is part of every key


class Controller:
    """What reach-verify does with the cache (core/verify/kbcache.h), in memory: entries go to the
    next job through --cache-in, and a job's cache_store is filed. (The C++ side, which scopes
    entries by the job's files, has tests of its own: tests/core/verify/kbcache_test.cpp.)"""

    def __init__(self, tmp):
        self.entries = {}
        self.path = os.path.join(tmp, "entries.json")

    def args(self):
        with open(self.path, "w") as f:
            json.dump({"entries": self.entries}, f)
        return ("--cache-in", self.path)

    def file(self, doc):
        for e in doc.get("cache_store", []):
            self.entries.setdefault(e["kind"], {})[e["key"]] = {
                "key": e["key"], "kind": e["kind"], "measured_at": e["measured_at"], "value": e["value"]}


@needs_torch
class Reuse(WorkerCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.cache = os.path.join(self.tmp, "cache")
        self.controller = Controller(self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_ok(self, args):
        r = fresh_run(tuple(args) + self.controller.args())
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIsNotNone(r.json, r.describe())
        self.controller.file(r.json)
        return r.json

    def test_kernelbench_verdict_is_reused_before_torch_is_imported(self):
        args = kb("23_Softmax", "softmax_chunked_1024", "--cache-dir", self.cache)
        first = self.run_ok(args)
        self.assertNotIn("reused", first)
        self.assertIn("import_torch", first["phase_seconds"])
        self.assertEqual([e["kind"] for e in first["cache_store"]], ["kernelbench"])
        second = self.run_ok(args)
        self.assertIn("reused", second)
        self.assertNotIn("import_torch", second["phase_seconds"])  # PyTorch never imported
        for field in ("correctness", "trials_passed", "trial_seeds", "max_difference", "tolerance"):
            self.assertEqual(second[field], first[field], field)
        # --fresh measures again (and asks for the entry to be filed anew).
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

    def test_the_compile_baseline_is_reused_eager_and_the_checks_are_not(self):
        args = reach("add_const", "add_correct", "--cache-dir", self.cache, "--seeds", "1",
                     "--scales", "1", "--reps", "5", "--warmup", "1")
        first = self.run_ok(args)
        eager = [b for b in first["baselines"] if b["kind"] == "eager"][0]
        self.assertNotIn("reused", eager)
        self.assertGreater(eager["us"], 0)
        self.assertEqual([e["kind"] for e in first["cache_store"]], ["baselines"])
        # Only torch.compile's entry is stored (on PyTorch 1.13 the note that it is unavailable).
        self.assertEqual([b["kind"] for b in first["cache_store"][0]["value"]], ["torch_compile"])
        second = self.run_ok(args)
        compiled = [b for b in second["baselines"] if b["kind"] == "torch_compile"][0]
        self.assertIn("reused", compiled)
        self.assertTrue(any(n.startswith("baselines: torch.compile's time reused") for n in second["notes"]))
        # The eager loop is the calibration, and a baseline no cache entry can plant: measured
        # again on every verify (issue 36: a planted eager time read 33x).
        again = [b for b in second["baselines"] if b["kind"] == "eager"][0]
        self.assertNotIn("reused", again)
        # Reach's own checks, the candidate's timing and the clock's calibration ran again.
        self.assertEqual(len(second["runs"]), len(first["runs"]))
        self.assertIsNotNone(second["timing"])
        self.assertNotIn("reused", second["timing"])
        self.assertGreater(len(second["calibration"]["clock"]["judge_us"]), 0)
        # Another timing protocol is another entry.
        other = self.run_ok(args[:-2] + ("--warmup", "2"))
        self.assertNotIn("reused", [b for b in other["baselines"] if b["kind"] == "torch_compile"][0])
        fresh = self.run_ok(args + ("--fresh",))
        self.assertNotIn("reused", [b for b in fresh["baselines"] if b["kind"] == "torch_compile"][0])

    def test_a_planted_eager_baseline_is_never_read(self):
        args = reach("add_const", "add_correct", "--cache-dir", self.cache, "--seeds", "1",
                     "--scales", "1", "--reps", "5", "--warmup", "1")
        first = self.run_ok(args)
        key = first["cache_store"][0]["key"]
        # What a candidate without a sandbox could write into the user's cache itself.
        self.controller.entries["baselines"][key] = {
            "key": key, "kind": "baselines", "measured_at": "2026-12-06T00:00:00Z",
            "value": [{"kind": "eager", "timing": None, "us": 1e9, "note": "planted"},
                      {"kind": "torch_compile", "timing": None, "us": 1e9, "note": "planted"}]}
        r = self.run_ok(args)
        eager = [b for b in r["baselines"] if b["kind"] == "eager"][0]
        self.assertLess(eager["us"], 1e8)
        # The planted compile time is larger than the eager one: the speedup is over eager.
        self.assertEqual(r["baseline_used"]["kind"], "eager")
        self.assertLess(r["speedup"], 100)

    def test_the_worker_writes_no_cache_file(self):
        self.run_ok(reach("add_const", "add_correct", "--cache-dir", self.cache, "--seeds", "1",
                          "--scales", "1", "--reps", "3", "--warmup", "1"))
        self.assertFalse(os.path.exists(os.path.join(self.cache, "results")))


if __name__ == "__main__":
    unittest.main()
