"""The JSON the C++ side parses: every documented key present, with the documented types, in every
outcome (pass, fail, compile error); strict JSON (no NaN literals), one object on stdout."""

import unittest

from workerutil import WorkerCase, kb, needs_torch, prefetch, reach, run_worker

NUM = (int, float)
OPT_NUM = (int, float, type(None))

KB_KEYS = {
    "mode": str, "reproduces": str, "compiled": bool, "correctness": bool,
    "correctness_trials": (str, type(None)), "trials_passed": int, "trials_total": int,
    "max_difference": list, "avg_difference": list, "tolerance": NUM, "precision": str,
    "runtime_ms": NUM, "runtime_stats": dict, "excessive_speedup": (bool, type(None)),
    "error_kind": (str, type(None)), "error": (str, type(None)), "log": str, "versions": dict,
    "device": dict,
}
KB_ERROR_KINDS = {None, "compilation_error", "runtime_error", "correctness_issue", "output_shape"}

REACH_KEYS = {
    "mode": str, "verdict": str, "reasons": list, "checks": list, "runs": list,
    "metrics": (dict, type(None)), "degenerate_reference": (bool, type(None)),
    "category": (str, type(None)), "reference_dtype": (str, type(None)), "thresholds": dict,
    "timing": (dict, type(None)), "flags": list, "time_basis": (str, type(None)), "baselines": list,
    "baseline_used": (dict, type(None)), "speedup": NUM, "library_fallback": (bool, type(None)),
    "candidate_kernels": (list, type(None)), "notes": list, "log": str, "versions": dict, "device": dict,
    "calibration": (dict, type(None)), "roofline_inputs": (dict, type(None)), "cache_store": list,
    "runner_log": str, "processes_killed": int,
}
CHECK_KEYS = {"name": str, "value": OPT_NUM, "threshold": OPT_NUM, "passed": bool, "detail": str}
RUN_KEYS = {"seed": int, "scale": NUM, "scale_label": str, "variant": str, "rel_frobenius": OPT_NUM, "norm_max_error": OPT_NUM,
            "max_abs_reference": OPT_NUM, "written_fraction": OPT_NUM, "non_finite": OPT_NUM,
            "inputs_unchanged": (bool, type(None)), "aliases_input": (bool, type(None)),
            "kernelbench_allclose": (bool, type(None)), "invariants": list}
METRIC_KEYS = {"rel_frobenius": OPT_NUM, "norm_max_error": OPT_NUM, "max_abs_reference": OPT_NUM,
               "total_count": OPT_NUM, "written_count": OPT_NUM, "written_fraction": OPT_NUM,
               "non_finite": OPT_NUM, "canary_bytes_changed": int, "inputs_unchanged": bool,
               "kernelbench_allclose": bool, "zeros_pass_kernelbench": (bool, type(None))}
TIMING_KEYS = {"reps": int, "warmup": int, "median_us": NUM, "p10_us": NUM, "p90_us": NUM,
               "min_us": NUM, "max_us": NUM, "mean_us": NUM, "l2_flushed": bool, "l2_flush_bytes": NUM,
               "sm_clock_before_mhz": int, "sm_clock_after_mhz": int, "clock_source": str,
               "runner_median_us": NUM, "time_basis": str, "redrawn": int}
CLOCK_KEYS = {"judge_us": list, "runner_us": list}
FIGURE_CLOCK_KEYS = dict(CLOCK_KEYS, figure_us=list)
BASELINE_KEYS = {"kind": str, "timing": (dict, type(None)), "us": OPT_NUM, "note": str}
THRESHOLD_KEYS = ("rel_frobenius", "norm_max_error", "invariant", "written_fraction")

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
            v = obj[key]
            if isinstance(types, tuple) and bool in types or types is bool:
                ok = isinstance(v, types)
            else:
                ok = isinstance(v, types) and not isinstance(v, bool)
            self.assertTrue(ok, f"{where}.{key}: {v!r} is not {types}")

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
        self.assertKeys(r["runtime_stats"], {"mean": NUM, "std": NUM, "min": NUM, "max": NUM,
                                             "num_trials": int}, "runtime_stats")

    def test_reach_keys(self):
        for args in RUNS[2:]:
            with self.subTest(args=args[4]):
                r = self.ok_json(args)
                self.assertKeys(r, REACH_KEYS, "reach")
                self.assertIn(r["verdict"], {"pass", "fail", "compile_error", "no_gpu"})
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
        self.assertIsInstance(r["calibration"]["gap_us"], NUM)
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


if __name__ == "__main__":
    unittest.main()
