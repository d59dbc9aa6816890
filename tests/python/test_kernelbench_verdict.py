"""`kernelbench`: KernelBench 423217d's eval_kernel_against_ref reproduced, on CPU-sized problems."""

import unittest

from workerutil import WorkerCase, kb, needs_torch, prefetch

NOTIME = "--no-timing"

RUNS = [
    kb("add_const", "add_off_2e4", NOTIME),
    kb("add_const", "add_off_2e4", NOTIME, "--tolerance", "1e-2"),
    kb("add_random", "add_sign_error", NOTIME, "--trials", "8"),
    kb("add_random", "add_nan", NOTIME),
    kb("add_random", "add_zero_out", NOTIME),
    kb("sqrt_nan", "sqrt_correct", NOTIME),
    kb("23_Softmax", "zeros_like", NOTIME),
    kb("23_Softmax", "softmax_chunked_1024", "--perf-trials", "2"),
    kb("23_Softmax", "softmax_chunked_1024", NOTIME, "--precision", "bf16"),
    kb("23_Softmax", "softmax_zero_inputs", NOTIME),
    kb("23_Softmax", "syntax_error", NOTIME),
    kb("23_Softmax", "missing_import", NOTIME),
    kb("23_Softmax", "no_modelnew", NOTIME),
    kb("23_Softmax", "init_runtime_error", NOTIME),
    kb("23_Softmax", "init_value_error", NOTIME),
    kb("23_Softmax", "softmax_wrong_shape", NOTIME),
    kb("23_Softmax", "softmax_non_tensor", NOTIME),
    kb("23_Softmax", "forward_raises", NOTIME),
    kb("add_random", "add_correct", "--perf-trials", "4"),
]


prefetch(RUNS)  # at import: discovery imports every module first, so all runs overlap


@needs_torch
class ToleranceAndTrials(WorkerCase):
    def test_off_by_2e4_fails_fp32_tolerance(self):
        # ref = 0.25 exactly, candidate 0.2502: |d| = 2e-4 > 1e-4 + 1e-4 * 0.2502 on every element.
        r = self.ok_json(kb("add_const", "add_off_2e4", NOTIME))
        self.assertTrue(r["compiled"])
        self.assertFalse(r["correctness"])
        self.assertEqual(r["tolerance"], 1e-4)
        self.assertEqual(r["correctness_trials"], "(0 / 5)")
        self.assertEqual((r["trials_passed"], r["trials_total"]), (0, 5))
        self.assertEqual(r["error_kind"], "correctness_issue")
        self.assertEqual(len(r["max_difference"]), 5)
        for v in r["max_difference"] + r["avg_difference"]:
            self.assertAlmostEqual(v, 2e-4, places=6)

    def test_off_by_2e4_passes_old_tolerance(self):
        r = self.ok_json(kb("add_const", "add_off_2e4", NOTIME, "--tolerance", "1e-2"))
        self.assertTrue(r["correctness"])
        self.assertEqual(r["tolerance"], 1e-2)
        self.assertEqual(r["correctness_trials"], "(5 / 5)")
        self.assertEqual(r["max_difference"], [])  # KernelBench records differences of failing trials only
        self.assertIsNone(r["error_kind"])

    def test_exact_candidate_passes(self):
        r = self.ok_json(kb("add_random", "add_correct", "--perf-trials", "4"))
        self.assertTrue(r["compiled"] and r["correctness"])
        self.assertEqual([t["max_difference"] for t in r["trials"]], [0.0] * 5)

    def test_trial_seeds_and_count(self):
        # Recompute KernelBench's per-trial seeds and inputs independently: the candidate is wrong
        # exactly when the first element of `a` (drawn after set_seed(trial seed)) is positive.
        import torch
        torch.manual_seed(42)
        seeds = [torch.randint(0, 2 ** 32 - 1, (1,)).item() for _ in range(8)]
        expect = []
        for s in seeds:
            torch.manual_seed(s)
            a = torch.randn(16, 64)
            expect.append(not a[0, 0].item() > 0)
        self.assertIn(True, expect)
        self.assertIn(False, expect)  # the fixture must give a mixed count to mean anything
        r = self.ok_json(kb("add_random", "add_sign_error", NOTIME, "--trials", "8"))
        self.assertEqual(r["trial_seeds"], seeds)
        self.assertEqual([t["passed"] for t in r["trials"]], expect)
        k = sum(expect)
        self.assertEqual(r["trials_passed"], k)
        self.assertEqual(r["correctness_trials"], f"({k} / 8)")
        self.assertFalse(r["correctness"])
        self.assertEqual(len(r["max_difference"]), 8 - k)
        for v in r["max_difference"]:
            self.assertAlmostEqual(v, 1.0, places=5)


@needs_torch
class AllcloseSemantics(WorkerCase):
    def test_nan_in_candidate_fails(self):
        r = self.ok_json(kb("add_random", "add_nan", NOTIME))
        self.assertFalse(r["correctness"])
        self.assertEqual(r["correctness_trials"], "(0 / 5)")
        self.assertEqual(r["max_difference"], [None] * 5)  # NaN is written as null

    def test_nan_never_close_even_where_reference_is_nan(self):
        # sqrt of negative numbers: the right answer has NaN where the reference does, and
        # allclose (equal_nan=False) still says no. Reach's oracle accepts it (test_reach_oracle).
        r = self.ok_json(kb("sqrt_nan", "sqrt_correct", NOTIME))
        self.assertTrue(r["compiled"])
        self.assertFalse(r["correctness"])

    def test_zeros_pass_wide_softmax_fp32(self):
        # Every element of a 32768-wide softmax is below 1e-4: zeros pass KernelBench's check.
        r = self.ok_json(kb("23_Softmax", "zeros_like", NOTIME))
        self.assertTrue(r["correctness"])
        self.assertEqual(r["correctness_trials"], "(5 / 5)")

    def test_chunked_softmax_fails_fp32_passes_bf16(self):
        r32 = self.ok_json(kb("23_Softmax", "softmax_chunked_1024", "--perf-trials", "2"))
        self.assertFalse(r32["correctness"])
        r16 = self.ok_json(kb("23_Softmax", "softmax_chunked_1024", NOTIME, "--precision", "bf16"))
        self.assertEqual(r16["tolerance"], 1e-2)
        self.assertEqual(r16["precision"], "bf16")
        self.assertTrue(r16["correctness"], "KernelBench's bf16 check lets the chunked softmax through")

    def test_input_modification(self):
        # KernelBench's own adversarial case (zero the inputs, return zeros) is caught ...
        r = self.ok_json(kb("add_random", "add_zero_out", NOTIME))
        self.assertFalse(r["correctness"])
        # ... but a right answer that destroys its input afterwards is not (the reference ran first).
        r = self.ok_json(kb("23_Softmax", "softmax_zero_inputs", NOTIME))
        self.assertTrue(r["correctness"])


@needs_torch
class CandidateFailures(WorkerCase):
    def test_syntax_error_is_not_compiled(self):
        r = self.ok_json(kb("23_Softmax", "syntax_error", NOTIME))
        self.assertFalse(r["compiled"])
        self.assertFalse(r["correctness"])
        self.assertEqual(r["error_kind"], "compilation_error")
        self.assertIn("syntax_error.py: line 7: SyntaxError", r["error"])

    def test_missing_import_is_not_compiled(self):
        r = self.ok_json(kb("23_Softmax", "missing_import", NOTIME))
        self.assertFalse(r["compiled"])
        self.assertIn("line 3", r["error"])
        self.assertIn("reach_no_such_module_xyz", r["error"])

    def test_no_modelnew_is_not_compiled(self):
        r = self.ok_json(kb("23_Softmax", "no_modelnew", NOTIME))
        self.assertFalse(r["compiled"])
        self.assertIn("ModelNew", r["error"])

    def test_runtime_error_in_init_is_compiled_not_correct(self):
        r = self.ok_json(kb("23_Softmax", "init_runtime_error", NOTIME))
        self.assertTrue(r["compiled"])
        self.assertFalse(r["correctness"])
        self.assertEqual(r["error_kind"], "runtime_error")
        self.assertIn("cannot set up the kernel", r["error"])

    def test_other_exception_in_init_is_not_compiled(self):
        r = self.ok_json(kb("23_Softmax", "init_value_error", NOTIME))
        self.assertFalse(r["compiled"])
        self.assertIn("ValueError", r["error"])

    def test_wrong_shape(self):
        r = self.ok_json(kb("23_Softmax", "softmax_wrong_shape", NOTIME))
        self.assertTrue(r["compiled"])
        self.assertFalse(r["correctness"])
        self.assertEqual(r["error_kind"], "output_shape")
        self.assertIn("[4, 32767]", r["error"])
        self.assertIsNone(r["correctness_trials"])  # KernelBench stops before recording it

    def test_non_tensor_output(self):
        r = self.ok_json(kb("23_Softmax", "softmax_non_tensor", NOTIME))
        self.assertTrue(r["compiled"])
        self.assertFalse(r["correctness"])
        self.assertEqual(r["error_kind"], "runtime_error")
        self.assertIn("tuple", r["error"])

    def test_exception_in_forward(self):
        r = self.ok_json(kb("23_Softmax", "forward_raises", NOTIME))
        self.assertFalse(r["correctness"])
        self.assertEqual(r["error_kind"], "runtime_error")
        self.assertIn("kernel launch failed", r["metadata"]["runtime_error"])


@needs_torch
class Timing(WorkerCase):
    def test_timed_when_correct(self):
        r = self.ok_json(kb("add_random", "add_correct", "--perf-trials", "4"))
        self.assertTrue(r["correctness"])
        self.assertGreater(r["runtime_ms"], 0)
        self.assertEqual(r["runtime_stats"]["num_trials"], 4)
        self.assertEqual(r["runtime_ms"], r["runtime_stats"]["mean"])
        self.assertEqual(r["timing_method"], "host_time")
        self.assertIsInstance(r["excessive_speedup"], bool)
        self.assertGreater(r["ref_runtime_ms"], 0)
        # The candidate prints; its text lands in the log, never on stdout (which parsed as JSON).
        self.assertIn("candidate module loaded", r["log"])
        self.assertIn("forward called", r["log"])

    def test_not_timed_when_incorrect(self):
        r = self.ok_json(kb("23_Softmax", "softmax_chunked_1024", "--perf-trials", "2"))
        self.assertFalse(r["correctness"])
        self.assertEqual(r["runtime_ms"], -1)
        self.assertEqual(r["runtime_stats"], {})
        self.assertIsNone(r["excessive_speedup"])


if __name__ == "__main__":
    unittest.main()
