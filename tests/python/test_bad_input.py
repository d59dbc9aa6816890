"""Bad input: exit 2, exactly one line on stderr naming the file (and the line), the same line as
JSON on stdout; never a bare traceback."""

import json
import os
import tempfile
import unittest

from workerutil import WorkerCase, candidate, kb, needs_torch, prefetch, problem, reach, run_worker

THRESHOLDS_BAD = None


def setUpModule():
    global THRESHOLDS_BAD
    fd, THRESHOLDS_BAD = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        f.write('{\n  "rel_frobenius": 1e-3,\n  "norm_max_error": oops\n}\n')
    prefetch([reach("add_random", "add_correct", "--no-timing", "--thresholds", THRESHOLDS_BAD)], exec_=True)


def tearDownModule():
    os.remove(THRESHOLDS_BAD)


RUNS = [
    reach("no_model", "add_correct", "--no-timing"),
    kb("syntax_problem", "add_correct", "--no-timing"),
    reach("does_not_exist", "add_correct", "--no-timing"),
    reach("add_random", "does_not_exist", "--no-timing"),
    reach("add_random", "add_correct", "--precision", "fp8"),
    reach("add_random", "add_correct", "--scales", "1,0"),
    reach("add_random", "add_correct", "--seeds", "one"),
    kb("add_random", "add_correct", "--trials", "0"),
    ("frobnicate",),
    ("reach", "--problem", problem("add_random")),
    reach("exits_at_import", "add_off_2e4", "--no-timing"),
    reach("interrupt_in_inputs", "add_off_2e4", "--no-timing"),
    kb("exits_at_import", "add_off_2e4", "--no-timing"),
    kb("interrupt_in_inputs", "add_off_2e4", "--no-timing"),
]
prefetch(RUNS, exec_=True)  # at import: discovery imports every module first, so all runs overlap


@needs_torch
class BadInput(WorkerCase):
    EXEC = True

    def assertBadInput(self, args, *expected):
        r = run_worker(*args, exec_=True)
        self.assertEqual(r.rc, 2, r.describe())
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"stderr must be one line:\n{r.stderr}")
        self.assertNotIn("Traceback", r.stderr + r.stdout)
        self.assertIsNotNone(r.json, r.describe())
        self.assertEqual(r.json["error"], lines[0])
        for text in expected:
            self.assertIn(text, lines[0])
        return lines[0]

    def test_a_problem_that_exits_or_is_interrupted_is_the_problems_fault(self):
        # sys.exit(0) while the problem loads, KeyboardInterrupt from its get_inputs(): exit 2 and
        # one line naming the problem, never the worker's exit 3 or the candidate's crash.
        for mode in (reach, kb):
            # (a candidate that prints nothing: KernelBench's order loads it before any input)
            line = self.assertBadInput(mode("exits_at_import", "add_off_2e4", "--no-timing"),
                                       "SystemExit")
            self.assertTrue(line.startswith(problem("exits_at_import") + ": "), line)
            line = self.assertBadInput(mode("interrupt_in_inputs", "add_off_2e4", "--no-timing"),
                                       "KeyboardInterrupt")
            self.assertTrue(line.startswith(problem("interrupt_in_inputs") + ": "), line)

    def test_problem_without_model(self):
        line = self.assertBadInput(reach("no_model", "add_correct", "--no-timing"), "missing Model")
        self.assertTrue(line.startswith(problem("no_model") + ": "), line)

    def test_syntax_error_in_problem(self):
        line = self.assertBadInput(kb("syntax_problem", "add_correct", "--no-timing"), "syntax error")
        self.assertTrue(line.startswith(problem("syntax_problem") + ": line 5: "), line)

    def test_unreadable_files(self):
        self.assertBadInput(reach("does_not_exist", "add_correct", "--no-timing"),
                            problem("does_not_exist") + ": cannot read")
        self.assertBadInput(reach("add_random", "does_not_exist", "--no-timing"),
                            candidate("does_not_exist") + ": cannot read")

    def test_bad_options(self):
        self.assertBadInput(reach("add_random", "add_correct", "--precision", "fp8"), "--precision", "fp8")
        self.assertBadInput(reach("add_random", "add_correct", "--scales", "1,0"), "--scales")
        self.assertBadInput(reach("add_random", "add_correct", "--seeds", "one"), "--seeds")
        self.assertBadInput(kb("add_random", "add_correct", "--trials", "0"), "--trials")
        self.assertBadInput(("frobnicate",), "frobnicate")
        self.assertBadInput(("reach", "--problem", problem("add_random")), "--candidate")

    def test_bad_thresholds_file(self):
        self.assertBadInput(reach("add_random", "add_correct", "--no-timing", "--thresholds", THRESHOLDS_BAD),
                            THRESHOLDS_BAD + ": line 3: expected JSON")

    def test_reach_error_verdict(self):
        r = run_worker(*reach("no_model", "add_correct", "--no-timing"), exec_=True)
        self.assertEqual(r.json.get("verdict"), "error")


class Probe(WorkerCase):
    def test_probe(self):
        r = run_worker("probe", exec_=True)
        self.assertEqual(r.rc, 0, r.describe())
        p = r.json
        for key in ("python", "python_version", "torch", "triton", "cuda_available", "device", "reason"):
            self.assertIn(key, p)
        self.assertIsInstance(p["cuda_available"], bool)
        if p["torch"] is None:
            self.assertTrue(p["reason"].startswith("no PyTorch in "))
        elif not p["cuda_available"]:
            self.assertEqual(p["reason"], "no CUDA device visible to PyTorch")
            self.assertIsNone(p["device"])
        else:
            for key in ("name", "index", "uuid", "sm_count", "l2_bytes", "memory_bytes", "capability"):
                self.assertIn(key, p["device"])
        json.dumps(p)


if __name__ == "__main__":
    unittest.main()
