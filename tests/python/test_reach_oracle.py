"""`reach`: Reach's float64 oracle catches the cheats KernelBench's check lets through (CPU part)."""

import unittest

from workerutil import WorkerCase, needs_torch, prefetch, reach

NOTIME = "--no-timing"
ONE = ("--seeds", "1", "--scales", "1")
TIMED = ("--reps", "12", "--warmup", "1", "--no-compile-baseline")
# Shared with test_json_contract (same arguments: one run).
REACH_TIMED = reach("23_Softmax", "softmax_correct", "--reps", "5", "--warmup", "1",
                    "--recorded-baseline-us", "1e9", "--recorded-baseline-source", "fixture")

RUNS = [
    reach("23_Softmax", "zeros_like", NOTIME),
    reach("23_Softmax", "softmax_chunked_1024", NOTIME),
    reach("23_Softmax", "softmax_chunked_1024", NOTIME, "--precision", "bf16"),
    reach("23_Softmax", "softmax_inplace", NOTIME, *ONE),
    reach("23_Softmax", "softmax_zero_inputs", NOTIME, *ONE),
    reach("add_random", "add_zero_out", NOTIME, *ONE),
    reach("23_Softmax", "softmax_cache_ptr", *ONE, *TIMED),
    reach("23_Softmax", "softmax_cache_id", *ONE, *TIMED),
    reach("23_Softmax", "softmax_cache_ptr", NOTIME, *ONE),
    reach("23_Softmax", "softmax_wrong_shape", NOTIME),
    reach("23_Softmax", "softmax_non_tensor", NOTIME),
    reach("23_Softmax", "forward_raises", NOTIME),
    reach("23_Softmax", "syntax_error", NOTIME),
    reach("23_Softmax", "missing_import", NOTIME),
    reach("23_Softmax", "no_modelnew", NOTIME),
    reach("23_Softmax", "init_value_error", NOTIME),
    reach("24_LogSoftmax", "logsoftmax_correct", NOTIME),
    reach("40_LayerNorm", "layernorm_correct", NOTIME),
    reach("36_RMSNorm_", "rmsnorm_correct", NOTIME),
    reach("47_Sum_reduction_over_a_dimension", "sum_correct", NOTIME),
    reach("47_Sum_reduction_over_a_dimension", "sum_drops_last", NOTIME),
    reach("sqrt_nan", "sqrt_correct", NOTIME),
    reach("add_random", "add_nan", NOTIME, *ONE),
    reach("add_const", "add_off_2e4", NOTIME, *ONE),
    reach("scale_channels_last", "scale_needs_channels_last", *ONE, *TIMED),
    REACH_TIMED,
]


prefetch(RUNS)  # at import: discovery imports every module first, so all runs overlap


def check(result, name):
    for c in result["checks"]:
        if c["name"] == name:
            return c
    raise AssertionError(f"no check {name!r} in {[c['name'] for c in result['checks']]}")


@needs_torch
class Positive(WorkerCase):
    def test_correct_softmax_passes_every_seed_and_scale(self):
        r = self.ok_json(REACH_TIMED)
        self.assertEqual(r["verdict"], "pass", r["reasons"])
        # 3 seeds x (4 scales, centred and spiked inputs: variants.py) by default, in fp32.
        self.assertEqual(len(r["runs"]), 18)
        self.assertEqual({x["scale_label"] for x in r["runs"]},
                         {"x1", "x100", "x0.01", "x-1", "centred", "spike"})
        self.assertEqual(r["variants"], ["x1", "x100", "x0.01", "x-1", "centred", "spike"])
        self.assertEqual(r["category"], "softmax")
        self.assertEqual(r["reference_dtype"], "float64")
        self.assertLess(r["metrics"]["rel_frobenius"], 1e-6)
        self.assertTrue(check(r, "invariant:row_sum")["passed"])
        self.assertTrue(r["degenerate_reference"])  # zeros would pass KernelBench here

    def test_invariants_of_correct_candidates(self):
        cases = [("24_LogSoftmax", "logsoftmax_correct", "log_softmax", ["invariant:row_logsumexp"]),
                 ("40_LayerNorm", "layernorm_correct", "layernorm",
                  ["invariant:row_mean", "invariant:row_variance"]),
                 ("36_RMSNorm_", "rmsnorm_correct", "rmsnorm", ["invariant:row_rms"]),
                 ("47_Sum_reduction_over_a_dimension", "sum_correct", "reduction_sum",
                  ["invariant:total_sum"])]
        for prob, cand, category, names in cases:
            with self.subTest(problem=prob):
                r = self.ok_json(reach(prob, cand, NOTIME))
                self.assertEqual(r["verdict"], "pass", r["reasons"])
                self.assertEqual(r["category"], category)
                for n in names:
                    c = check(r, n)
                    self.assertTrue(c["passed"])
                    self.assertLess(c["value"], 1e-5)

    def test_channels_last_input_arrives_channels_last(self):
        # The reference, the baselines and the candidate see the layout the problem drew.
        r = self.ok_json(reach("scale_channels_last", "scale_needs_channels_last", *ONE, *TIMED))
        self.assertEqual(r["verdict"], "pass", r["reasons"])

    def test_rmsnorm_axis_found_from_reference(self):
        r = self.ok_json(reach("36_RMSNorm_", "rmsnorm_correct", NOTIME))
        self.assertIn("rmsnorm invariants along dim [1] (found from the reference)", r["notes"])

    def test_reference_nan_matched_by_candidate_passes(self):
        r = self.ok_json(reach("sqrt_nan", "sqrt_correct", NOTIME))
        self.assertEqual(r["verdict"], "pass", r["reasons"])

    def test_timed_correct_candidate(self):
        r = self.ok_json(REACH_TIMED)
        self.assertEqual(r["verdict"], "pass", r["reasons"])
        t = r["timing"]
        self.assertEqual(t["reps"], 5)
        self.assertEqual(t["clock_source"], "host")
        # The judge's own clock (its window less the calibrated harness gap), not the runner's.
        self.assertEqual(r["time_basis"], "judge_host")
        self.assertGreater(t["median_us"], 0)
        self.assertGreater(t["runner_median_us"], 0)
        self.assertEqual(len(t["clock"]["figure_us"]), 5)
        self.assertAlmostEqual(t["median_us"], sorted(t["clock"]["figure_us"])[2], places=2)
        gap = r["calibration"]["gap_us"]
        c = t["clock"]
        for f, w, e in zip(c["figure_us"], c["judge_us"], c["runner_us"]):
            self.assertAlmostEqual(f, max(w - gap, e), places=2)  # host clock: never below the claim
        self.assertTrue(check(r, "timed_outputs")["passed"])
        kinds = [b["kind"] for b in r["baselines"]]
        self.assertEqual(kinds, ["eager", "torch_compile", "recorded"])
        self.assertEqual(r["baseline_used"]["kind"], "eager")
        self.assertAlmostEqual(r["speedup"], r["baselines"][0]["us"] / t["median_us"], places=9)


@needs_torch
class Cheats(WorkerCase):
    def test_zeros_on_degenerate_reference(self):
        r = self.ok_json(reach("23_Softmax", "zeros_like", NOTIME))
        self.assertEqual(r["verdict"], "fail")
        self.assertTrue(r["degenerate_reference"])
        self.assertTrue(r["metrics"]["zeros_pass_kernelbench"])
        # Scale x1 is where KernelBench's own inputs live: there the zeros pass its allclose.
        x1 = [x for x in r["runs"] if x["scale_label"] == "x1"]
        self.assertTrue(all(x["kernelbench_allclose"] for x in x1))
        self.assertReason(r, "rel_frobenius: 1 > 0.001 at seed")
        self.assertReason(r, "invariant:row_sum")

    def test_softmax_in_1024_chunks(self):
        for extra in ((), ("--precision", "bf16")):
            with self.subTest(precision=extra or "fp32"):
                r = self.ok_json(reach("23_Softmax", "softmax_chunked_1024", NOTIME, *extra))
                self.assertEqual(r["verdict"], "fail")
                c = check(r, "invariant:row_sum")
                self.assertFalse(c["passed"])
                self.assertAlmostEqual(c["value"], 31.0, delta=0.5)  # rows sum to 32768 / 1024 = 32
                self.assertReason(r, "invariant:row_sum")
                self.assertReason(r, "rel_frobenius")
                # KernelBench's view at its own inputs (x1): bf16's 1e-2 lets it through, fp32's 1e-4 not.
                self.assertEqual(r["metrics"]["kernelbench_allclose"], bool(extra))

    def test_overwrites_input_with_right_values(self):
        r = self.ok_json(reach("23_Softmax", "softmax_inplace", NOTIME, *ONE))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "inputs_unchanged: the candidate modified input(s) [0] at seed 1 scale x1")
        self.assertReason(r, "output_aliases_input")
        self.assertFalse(r["runs"][0]["inputs_unchanged"])
        self.assertTrue(r["runs"][0]["aliases_input"])
        self.assertNoReason(r, "rel_frobenius")  # the values themselves are right

    def test_destroys_input_after_computing(self):
        r = self.ok_json(reach("23_Softmax", "softmax_zero_inputs", NOTIME, *ONE))
        self.assertEqual(r["verdict"], "fail")
        self.assertEqual(r["reasons"], ["inputs_unchanged: the candidate modified input(s) [0] at seed 1 scale x1"])
        self.assertFalse(r["metrics"]["inputs_unchanged"])

    def test_kernelbench_zero_out_kernel(self):
        r = self.ok_json(reach("add_random", "add_zero_out", NOTIME, *ONE))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "inputs_unchanged")
        self.assertReason(r, "rel_frobenius")

    def test_result_cached_by_pointer_or_identity(self):
        for cand in ("softmax_cache_ptr", "softmax_cache_id"):
            with self.subTest(candidate=cand):
                r = self.ok_json(reach("23_Softmax", cand, *ONE, *TIMED))
                self.assertEqual(r["verdict"], "fail")
                self.assertFalse(check(r, "timed_outputs")["passed"] and check(r, "rel_frobenius")["passed"])

    def test_result_cache_caught_without_timing(self):
        # The judge draws every run's inputs into the same shared buffers: a cache keyed on the
        # address returns the first run's answer to the second.
        r = self.ok_json(reach("23_Softmax", "softmax_cache_ptr", NOTIME, "--seeds", "1,2", "--scales", "1"))
        self.assertEqual(r["verdict"], "fail", r["reasons"])
        self.assertReason(r, "rel_frobenius")

    def test_nan_output(self):
        r = self.ok_json(reach("add_random", "add_nan", NOTIME, *ONE))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "non_finite: 1 elements")
        self.assertIsNone(r["metrics"]["rel_frobenius"])  # NaN, written as null

    def test_sum_missing_an_element(self):
        r = self.ok_json(reach("47_Sum_reduction_over_a_dimension", "sum_drops_last", NOTIME))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "invariant:total_sum")

    def test_small_error_beyond_fp32_threshold(self):
        # 2e-4 on values of 0.25: rel_frobenius 8e-4 < 1e-3, norm_max 8e-4 < 5e-3: within Reach's
        # fp32 thresholds although KernelBench's 1e-4 check fails it.
        r = self.ok_json(reach("add_const", "add_off_2e4", NOTIME, *ONE))
        self.assertEqual(r["verdict"], "pass", r["reasons"])
        self.assertAlmostEqual(r["metrics"]["rel_frobenius"], 2e-4 / 0.25, delta=1e-6)
        self.assertFalse(r["metrics"]["kernelbench_allclose"])


@needs_torch
class Failures(WorkerCase):
    def test_wrong_shape(self):
        r = self.ok_json(reach("23_Softmax", "softmax_wrong_shape", NOTIME))
        self.assertEqual(r["verdict"], "fail")
        self.assertEqual(r["reasons"], ["shape: expected [4, 32768], got [4, 32767] at seed 1 scale x1"])

    def test_non_tensor(self):
        r = self.ok_json(reach("23_Softmax", "softmax_non_tensor", NOTIME))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "output_type: expected exactly a torch.Tensor, got a tuple")

    def test_exception_in_forward_is_a_fail(self):
        r = self.ok_json(reach("23_Softmax", "forward_raises", NOTIME))
        self.assertEqual(r["verdict"], "fail")
        self.assertReason(r, "runtime_error: RuntimeError: kernel launch failed")

    def test_compile_errors(self):
        cases = {"syntax_error": "syntax_error.py: line 7: SyntaxError",
                 "missing_import": "missing_import.py: line 3: ModuleNotFoundError",
                 "no_modelnew": "no_modelnew.py: no ModelNew defined",
                 "init_value_error": "init_value_error.py: line 8: ModelNew(*get_init_inputs()) raised ValueError"}
        for cand, text in cases.items():
            with self.subTest(candidate=cand):
                r = self.ok_json(reach("23_Softmax", cand, NOTIME))
                self.assertEqual(r["verdict"], "compile_error")
                self.assertEqual(len(r["reasons"]), 1)
                self.assertIn(text, r["reasons"][0])
                self.assertEqual(r["runs"], [])


if __name__ == "__main__":
    unittest.main()
