"""The JSON the C++ side parses: every key of resources/kernelbench/judge_document_schema.json
present, with its types, in every outcome (pass, fail, compile error); strict JSON (no NaN
literals), one object on stdout. The C++ side holds a recorded document to the same schema
(tests/core/verify/judgedocument_test.cpp)."""

import json
import os
import unittest

import workerutil
from workerutil import WorkerCase, kb, needs_torch, prefetch, reach, run_worker

# The one schema of these documents, which the C++ side's test reads too.
with open(os.path.join(workerutil.REPO, "resources", "kernelbench", "judge_document_schema.json")) as f:
    SCHEMA = json.load(f)
KB_KEYS = SCHEMA["kernelbench"]
KB_ERROR_KINDS = set(SCHEMA["kernelbench_error_kinds"])
REACH_KEYS = SCHEMA["reach"]
CHECK_KEYS = SCHEMA["check"]
RUN_KEYS = SCHEMA["run"]
METRIC_KEYS = SCHEMA["metrics"]
TIMING_KEYS = SCHEMA["timing"]
CLOCK_KEYS = SCHEMA["clock"]
FIGURE_CLOCK_KEYS = SCHEMA["figure_clock"]
BASELINE_KEYS = SCHEMA["baseline"]
THRESHOLD_KEYS = tuple(SCHEMA["thresholds"])
TYPES = {"str": str, "int": int, "number": (int, float), "bool": bool, "list": list, "dict": dict,
         "null": type(None)}


def type_ok(value, names):
    """Whether value has one of the schema's type names (a bool is never an int or a number)."""
    for n in names:
        if n == "bool" and isinstance(value, bool):
            return True
        if n != "bool" and isinstance(value, TYPES[n]) and not isinstance(value, bool):
            return True
    return False


REACH_TIMED = reach("23_Softmax", "softmax_correct", "--reps", "5", "--warmup", "1",
                    "--recorded-baseline-us", "1e9", "--recorded-baseline-source", "fixture")
# The same argument lists as in the other modules: each run happens once per test process.
RUNS = [
    kb("add_random", "add_correct", "--perf-trials", "4"),
    kb("23_Softmax", "syntax_error", "--no-timing"),
    REACH_TIMED,
    reach("23_Softmax", "zeros_like", "--no-timing"),
    reach("23_Softmax", "syntax_error", "--no-timing"),
]


prefetch(RUNS)  # at import: discovery imports every module first, so all runs overlap
prefetch([REACH_TIMED], exec_=True)


@needs_torch
class Contract(WorkerCase):
    def assertKeys(self, obj, spec, where):
        self.assertIsInstance(obj, dict, where)
        for key, types in spec.items():
            self.assertIn(key, obj, f"{where}: missing key {key!r}")
            self.assertTrue(type_ok(obj[key], types), f"{where}.{key}: {obj[key]!r} is not {types}")

    def test_kernelbench_keys(self):
        for args in RUNS[:2]:
            with self.subTest(args=args[4]):
                r = self.ok_json(args)
                self.assertKeys(r, KB_KEYS, "kernelbench")
                self.assertEqual(r["mode"], "kernelbench")
                self.assertIn("423217d", r["reproduces"])
                self.assertIn(r["error_kind"], KB_ERROR_KINDS)
                for key in ("python", "torch"):
                    self.assertIn(key, r["versions"])
        r = self.ok_json(RUNS[0])
        self.assertKeys(r["runtime_stats"], SCHEMA["runtime_stats"], "runtime_stats")

    def test_reach_keys(self):
        for args in RUNS[2:]:
            with self.subTest(args=args[4]):
                r = self.ok_json(args)
                self.assertKeys(r, REACH_KEYS, "reach")
                self.assertIn(r["verdict"], set(SCHEMA["reach_verdicts"]))
                for c in r["checks"]:
                    self.assertKeys(c, CHECK_KEYS, "check")
                for x in r["runs"]:
                    self.assertKeys(x, RUN_KEYS, "run")
                    for c in x["invariants"]:
                        self.assertKeys(c, CHECK_KEYS, "run invariant")
                if r["metrics"] is not None:
                    self.assertKeys(r["metrics"], METRIC_KEYS, "metrics")
                self.assertTrue(all(isinstance(s, str) for s in r["reasons"] + r["notes"] + r["flags"]))
                if r["verdict"] != "compile_error":
                    self.assertEqual(sorted(r["thresholds"]), sorted(THRESHOLD_KEYS))

    def test_reach_timed_keys(self):
        # On a real `python3 reach_kbworker.py` process, as Reach starts it.
        r = run_worker(*REACH_TIMED, exec_=True)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertIsNotNone(r.json, r.describe())
        self.assertEqual(r.stdout.count("\n"), 1, "exactly one line (one JSON object) on stdout")
        r = r.json
        self.assertEqual(r["verdict"], "pass", r["reasons"])
        self.assertEqual(len(r["runs"]), 18)
        self.assertKeys(r["timing"], TIMING_KEYS, "timing")
        # What the controller's clock agreement reads (verdictpolicy.h): one sample per timed
        # repetition on both clocks, for the candidate and for the calibration.
        self.assertKeys(r["timing"]["clock"], FIGURE_CLOCK_KEYS, "timing clock")
        self.assertEqual(len(r["timing"]["clock"]["judge_us"]), 5)
        self.assertEqual(len(r["timing"]["clock"]["runner_us"]), 5)
        self.assertKeys(r["calibration"]["clock"], CLOCK_KEYS, "calibration clock")
        self.assertTrue(type_ok(r["calibration"]["gap_us"], ["number"]))
        self.assertEqual([b["kind"] for b in r["baselines"]], ["eager", "torch_compile", "recorded"])
        for b in r["baselines"]:
            self.assertKeys(b, BASELINE_KEYS, "baseline")
            if b["timing"] is not None:
                self.assertKeys(b["timing"], TIMING_KEYS, "baseline timing")
        # The eager loop's repetitions, which the exact projection resamples (docs/benchmark.md).
        self.assertKeys(r["baselines"][0]["timing"]["clock"], FIGURE_CLOCK_KEYS, "eager baseline clock")
        self.assertEqual(len(r["baselines"][0]["timing"]["clock"]["runner_us"]), 5)
        self.assertEqual(r["baselines"][2], {"kind": "recorded", "timing": None, "us": 1e9, "note": "fixture"})
        self.assertEqual(r["baseline_used"]["kind"], "eager")  # the fastest one
        self.assertGreater(r["speedup"], 0)
        # Thresholds come from resources/oracle/thresholds.json (fp32 row).
        self.assertEqual(r["thresholds"], {"rel_frobenius": 1e-3, "norm_max_error": 5e-3,
                                           "invariant": 1e-3, "written_fraction": 1.0})

    def test_failed_reasons_match_failed_checks(self):
        r = self.ok_json(RUNS[3])
        self.assertEqual(r["verdict"], "fail")
        failed = [c["name"] for c in r["checks"] if not c["passed"]]
        self.assertEqual(len(failed), len(r["reasons"]))
        for name, reason in zip(failed, r["reasons"]):
            self.assertTrue(reason.startswith(name + ": "), (name, reason))


class RecordedDocument(unittest.TestCase):
    """The judge document the C++ side's test composes is one the schema describes (no PyTorch
    needed: it is a file)."""

    def test_the_recorded_document_holds_to_the_schema(self):
        path = os.path.join(workerutil.REPO, "tests", "data", "kernelbench", "judge_document_cpu.json")
        with open(path) as f:
            r = json.load(f)
        parts = [(r, REACH_KEYS, "reach"), (r["metrics"], METRIC_KEYS, "metrics"),
                 (r["timing"], TIMING_KEYS, "timing"), (r["timing"]["clock"], FIGURE_CLOCK_KEYS, "clock"),
                 (r["thresholds"], SCHEMA["thresholds"], "thresholds")]
        parts += [(c, CHECK_KEYS, "check") for c in r["checks"]]
        parts += [(x, RUN_KEYS, "run") for x in r["runs"]]
        parts += [(b, BASELINE_KEYS, "baseline") for b in r["baselines"]]
        for obj, spec, where in parts:
            for key, types in spec.items():
                self.assertIn(key, obj, f"{where}: missing key {key!r}")
                self.assertTrue(type_ok(obj[key], types), f"{where}.{key}: {obj[key]!r} is not {types}")


if __name__ == "__main__":
    unittest.main()
