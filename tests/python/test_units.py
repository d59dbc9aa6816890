"""Unit tests of the worker's pieces on known values (imported directly; no subprocess)."""

import math
import json
import os
import tempfile
import unittest

from workerutil import PYDIR, needs_torch

from reach_kb import allocator, categories, profiling, report, thresholds
from reach_kb import judgetiming as timing


@needs_torch
class OracleMetrics(unittest.TestCase):
    def compare(self, out, ref, **kw):
        import torch
        from reach_kb import oracle
        return oracle.compare(torch.tensor(out, dtype=torch.float32),
                              torch.tensor(ref, dtype=torch.float64), **kw)

    def test_exact(self):
        m = self.compare([3.0, 4.0], [3.0, 4.0])
        self.assertEqual((m["rel_frobenius"], m["norm_max_error"], m["non_finite"]), (0.0, 0.0, 0))
        self.assertEqual(m["max_abs_reference"], 4.0)

    def test_known_errors(self):
        # ||(0, 1)|| / ||(3, 4)|| = 1/5; max|d| / max|ref| = 1/4
        m = self.compare([3.0, 5.0], [3.0, 4.0])
        self.assertAlmostEqual(m["rel_frobenius"], 0.2, places=12)
        self.assertAlmostEqual(m["norm_max_error"], 0.25, places=12)
        m = self.compare([0.0, 0.0], [3.0, 4.0])
        self.assertEqual((m["rel_frobenius"], m["norm_max_error"]), (1.0, 1.0))

    def test_scale_invariant(self):
        a = self.compare([3.0, 5.0], [3.0, 4.0])
        b = self.compare([3e-6, 5e-6], [3e-6, 4e-6])
        self.assertAlmostEqual(a["rel_frobenius"], b["rel_frobenius"], places=6)

    def test_non_finite_is_nan(self):
        m = self.compare([float("nan"), 4.0], [3.0, 4.0])
        self.assertTrue(math.isnan(m["rel_frobenius"]) and math.isnan(m["norm_max_error"]))
        self.assertEqual(m["non_finite"], 1)
        m = self.compare([float("inf"), 4.0], [3.0, 4.0])
        self.assertEqual(m["non_finite"], 1)

    def test_reference_nan_must_be_matched(self):
        m = self.compare([float("nan"), 4.0], [float("nan"), 4.0])
        self.assertEqual((m["non_finite"], m["rel_frobenius"]), (0, 0.0))
        self.assertEqual(m["reference_non_finite"], 1)
        m = self.compare([1.0, 4.0], [float("nan"), 4.0])
        self.assertEqual(m["non_finite"], 1)

    def test_unwritten_counts_as_zero(self):
        import torch
        from reach_kb import oracle
        out = torch.tensor([float("nan"), 4.0])
        m = oracle.compare(out, torch.tensor([3.0, 4.0], dtype=torch.float64),
                           unwritten=torch.tensor([True, False]))
        self.assertEqual(m["non_finite"], 0)
        self.assertAlmostEqual(m["rel_frobenius"], 3.0 / 5.0, places=12)
        self.assertEqual(m["written_count"], 1)

    def test_kernelbench_view(self):
        import torch
        # |ref| <= 1e-2 everywhere: zeros pass KernelBench's bf16 check (the degenerate flag).
        m = self.compare([0.0, 0.0], [1e-3, 2e-3], kb_dtype=torch.float32, kb_tol=1e-2)
        self.assertTrue(m["zeros_pass_kernelbench"])
        self.assertTrue(m["kernelbench_allclose"])
        m = self.compare([0.0, 0.0], [1e-3, 0.5], kb_dtype=torch.float32, kb_tol=1e-2)
        self.assertFalse(m["zeros_pass_kernelbench"])
        self.assertFalse(m["kernelbench_allclose"])
        # rtol is relative to the candidate: |0.2502 - 0.25| = 2e-4 > 1e-4 + 1e-4 * 0.2502
        m = self.compare([0.2502], [0.25], kb_dtype=torch.float32, kb_tol=1e-4)
        self.assertFalse(m["kernelbench_allclose"])
        # a dtype other than the expected one fails KernelBench's allclose (it raises there)
        m = self.compare([0.25], [0.25], kb_dtype=torch.bfloat16, kb_tol=1e-2)
        self.assertFalse(m["kernelbench_allclose"])

    def test_chunked(self):
        import torch
        from reach_kb import oracle
        old = oracle.CHUNK
        oracle.CHUNK = 3
        try:
            ref = torch.arange(1.0, 11.0, dtype=torch.float64)
            out = ref.float().clone()
            out[7] += 1.0
            m = oracle.compare(out, ref)
        finally:
            oracle.CHUNK = old
        self.assertAlmostEqual(m["rel_frobenius"], 1.0 / math.sqrt(385.0), places=9)
        self.assertAlmostEqual(m["norm_max_error"], 0.1, places=12)


class AllocatorPlan(unittest.TestCase):
    SEGMENTS = [
        {"device": 0, "address": 1000, "stream": 0, "segment_type": "large", "total_size": 30 << 20,
         "blocks": [{"size": 8 << 20, "state": "active_allocated"},
                    {"size": 20 << 20, "state": "inactive"},
                    {"size": 1 << 20, "state": "inactive"},  # large-pool remnant: unreachable
                    {"size": 1 << 20, "state": "active_awaiting_free"}]},
        {"device": 0, "address": 50_000_000, "stream": 0, "segment_type": "small", "total_size": 2 << 20,
         "blocks": [{"address": 50_000_000, "size": 512, "state": "inactive"},
                    {"address": 50_000_512, "size": (2 << 20) - 512, "state": "active_allocated"}]},
        {"device": 0, "address": 90_000_000, "stream": 77, "segment_type": "large", "total_size": 40 << 20,
         "blocks": [{"size": 40 << 20, "state": "inactive"}]},  # another stream's pool
        {"device": 1, "address": 200_000_000, "stream": 0, "segment_type": "large", "total_size": 40 << 20,
         "blocks": [{"size": 40 << 20, "state": "inactive"}]},  # another device
    ]

    def test_free_blocks(self):
        blocks = allocator.free_blocks(self.SEGMENTS, device_index=0, stream=0)
        # Addresses follow from the sizes where the snapshot (older PyTorch) gives none.
        self.assertEqual(blocks, [(1000 + (8 << 20), 20 << 20, "large"), (50_000_000, 512, "small")])

    def test_other_stream_listed_when_asked(self):
        blocks = allocator.free_blocks(self.SEGMENTS, device_index=0, stream=77)
        self.assertEqual(blocks, [(90_000_000, 40 << 20, "large")])

    def test_coverage(self):
        ranges = allocator.merge([(100, 200), (200, 300), (500, 600)])
        self.assertEqual(ranges, [(100, 300), (500, 600)])
        self.assertTrue(allocator.covered(ranges, 150, 300))
        self.assertFalse(allocator.covered(ranges, 250, 550))
        self.assertFalse(allocator.covered(ranges, 600, 601))

    @needs_torch
    def test_pattern_mask_every_dtype(self):
        import torch
        for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.int32):
            with self.subTest(dtype=dtype):
                t = torch.empty(10, dtype=dtype)
                t.view(torch.uint8).fill_(allocator.PATTERN)
                if dtype.is_floating_point:
                    self.assertTrue(bool(torch.isnan(t).all()), "the pattern is a NaN")
                t[:3] = 1
                mask = allocator.pattern_mask(torch, t)
                self.assertEqual(mask.tolist(), [False] * 3 + [True] * 7)

    @needs_torch
    def test_fill_orchestration_with_a_fake_allocator(self):
        # fill_free_blocks against a stand-in for torch.cuda: it must reserve a block for the
        # output when none is large enough, list the blocks again (the reservation's segment has
        # a free rest), request every free block at its exact size, largest first, fill them all
        # with the pattern, and report the filled ranges.
        import torch
        requested, filled = [], []
        snapshots = [
            [{"device": 0, "address": 0, "stream": 0, "segment_type": "large",
              "blocks": [{"size": 4 << 20, "state": "inactive"}]}],
            [{"device": 0, "address": 0, "stream": 0, "segment_type": "large",
              "blocks": [{"size": 4 << 20, "state": "inactive"}]},
             {"device": 0, "address": 1 << 30, "stream": 0, "segment_type": "large",
              "blocks": [{"size": 10 << 20, "state": "active_allocated"},
                         {"size": 2 << 20, "state": "inactive"}]}],
        ]

        class Stream:
            cuda_stream = 0

        class Cuda:
            @staticmethod
            def synchronize(device=None):
                pass

            @staticmethod
            def current_stream(device=None):
                return Stream()

            @staticmethod
            def memory_snapshot():
                return snapshots.pop(0)

        class Fake:
            uint8 = torch.uint8
            cuda = Cuda

            @staticmethod
            def empty(n, dtype=None, device=None):
                requested.append(n)
                t = torch.empty(n, dtype=dtype)
                filled.append(t)
                return t

        class Dev:
            index = 0

        fill = allocator.fill_free_blocks(Fake, Dev(), 10 << 20)
        # OUTPUT_BLOCKS blocks that can hold the output are reserved first (no free block of the
        # size exists yet), then every free block the new snapshot lists.
        n = allocator.OUTPUT_BLOCKS
        self.assertEqual(requested, [10 << 20] * n + [4 << 20, 2 << 20])
        self.assertEqual(snapshots, [])
        self.assertTrue(all(bool((t == allocator.PATTERN).all()) for t in filled))
        self.assertEqual(fill.filled_bytes, (10 * n + 6) << 20)

    @needs_torch
    def test_unwritten_mask_needs_coverage(self):
        import torch
        t = torch.empty(8, dtype=torch.float32)
        t.view(torch.uint8).fill_(allocator.PATTERN)
        t[:2] = 0.5
        start = t.data_ptr()
        fill = allocator.Fill([(start - 64, start + 32 + 64)], [])
        self.assertEqual(allocator.unwritten_mask(torch, t, fill).sum().item(), 6)
        fill = allocator.Fill([(start + 4, start + 32)], [])
        self.assertIsNone(allocator.unwritten_mask(torch, t, fill))


class TimingStats(unittest.TestCase):
    def test_sample_stats_like_cpp(self):
        s = timing.sample_stats([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])
        self.assertEqual(s["median_us"], 5.5)
        self.assertEqual(s["p10_us"], 2)  # sorted[round(0.1 * 9)] = sorted[1]
        self.assertEqual(s["p90_us"], 9)  # sorted[round(0.9 * 9)] = sorted[8]
        self.assertEqual((s["min_us"], s["max_us"], s["mean_us"], s["reps"]), (1, 10, 5.5, 10))
        self.assertEqual(timing.sample_stats([3, 1, 2])["median_us"], 2)

    def test_flush_size(self):
        self.assertEqual(timing.flush_bytes(60 << 20), 120 << 20)
        self.assertEqual(timing.flush_bytes(4 << 20), 64 << 20)
        self.assertEqual(timing.flush_bytes(None), timing.FLUSH_UNKNOWN_L2_BYTES)

    def test_clock_samples_keep_the_timed_repetitions_in_order(self):
        cal_loop = timing.LoopResult()
        cal_loop.total, cal_loop.e = [110.0, 130.0, 120.0], [80.0, 80.0, 80.0]
        cal = timing.Calibration(cal_loop, cuda=False)
        self.assertEqual(cal.gap_us, 40.0)  # the median of window - claim
        loop = timing.LoopResult()
        loop.total, loop.e = [100.123456, 90.0], [80.0, 70.5]
        # On the host clock the figure is never below the runner's claim (windows less the gap
        # are 60.1 and 50 us here: host noise, below what the call itself took).
        self.assertEqual(timing.clock_samples(loop, cal),
                         {"judge_us": [100.123, 90.0], "runner_us": [80.0, 70.5],
                          "figure_us": [80.0, 70.5]})

    def test_the_figure_is_the_judges_window_less_the_calibrated_gap(self):
        # Issue 36: a runner that reports a tenth of its 3000 us in 70 % of the calls changes
        # its claims, not the judge's windows, and the figure is the windows'.
        cal_loop = timing.LoopResult()
        cal_loop.total = [3300.0 + i for i in range(10)]
        cal_loop.e = [3000.0] * 10
        cal = timing.Calibration(cal_loop, cuda=False)
        lying = timing.LoopResult()
        lying.total = [3300.0 + i for i in range(10)]
        lying.e = [300.0 if i % 10 < 7 else 9000.0 for i in range(10)]
        self.assertAlmostEqual(timing.sample_stats(cal.figures(lying))["median_us"], 3000.0, delta=5)

    def test_the_same_figures_as_the_cpp_controller(self):
        # tests/data/timing/harness_golden.json: core/verify/harnessclock.h gives these too.
        path = os.path.join(os.path.dirname(__file__), "..", "data", "timing", "harness_golden.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)

        def loop_of(c):
            loop = timing.LoopResult()
            loop.total, loop.stretch, loop.e = c["total_us"], c["stretch_us"], c["claim_us"]
            return loop

        for c in doc["cases"]:
            with self.subTest(case=c["name"]):
                cal = timing.Calibration(loop_of(c["trusted"]), cuda=c["gpu"])
                e = c["expect"]
                self.assertAlmostEqual(cal.gap_us, e["gap_us"], places=9)
                self.assertAlmostEqual(cal.stretch_us, e["stretch_us"], places=9)
                self.assertAlmostEqual(cal.stretch_tol_us, e["stretch_tolerance_us"], places=9)
                for got, want in zip(cal.figures(loop_of(c["loop"])), e["figures_us"]):
                    self.assertAlmostEqual(got, want, places=9)

    def test_on_the_gpu_the_window_starts_at_the_inputs_less_the_calibrated_stretch(self):
        cal_loop = timing.LoopResult()
        cal_loop.total, cal_loop.stretch, cal_loop.e = [600.0, 602.0, 601.0], [300.0, 300.0, 300.0], [280.0] * 3
        cal = timing.Calibration(cal_loop, cuda=True)
        self.assertEqual(cal.stretch_us, 300.0)
        self.assertEqual(cal.gap_us, 21.0)
        self.assertEqual(cal.stretch_tol_us, 2.0)  # the floor: the calibration's stretch did not vary
        # Work the runner's context did during the judge's stretch (200 us more of it) is charged,
        # beyond the tolerance: E0..E1 (301 us) + 198 us - the gap (21 us).
        stealing = timing.LoopResult()
        stealing.total, stealing.stretch, stealing.e = [801.0] * 3, [500.0] * 3, [10.0] * 3
        self.assertEqual(cal.figures(stealing), [478.0] * 3)
        # A stretch within the tolerance is the judge's own jitter: not charged.
        honest = timing.LoopResult()
        honest.total, honest.stretch, honest.e = [602.0] * 3, [301.5] * 3, [280.0] * 3
        self.assertEqual(cal.figures(honest), [279.5] * 3)


class Categories(unittest.TestCase):
    def test_shipped_table(self):
        path = categories.default_path(PYDIR)
        self.assertTrue(os.path.exists(path), path)
        self.assertEqual(categories.classify(path, "23_Softmax"), ("softmax", "softmax"))
        self.assertEqual(categories.classify(path, "24_LogSoftmax"), ("log_softmax", "softmax"))
        self.assertEqual(categories.classify(path, "36_RMSNorm_"), ("rmsnorm", "normalization"))
        self.assertEqual(categories.classify(path, "54_conv_standard_3D__square_input__square_kernel"),
                         ("conv", "conv"))
        self.assertEqual(categories.classify(path, "reach_03_log_softmax"), ("log_softmax", "softmax"))
        self.assertEqual(categories.classify(path, "reach_08_sum_dim"), ("reduction_sum", "reduction"))
        self.assertEqual(categories.classify(path, "reach_11_dlrm_lookup"), ("fused_embedding", "embedding"))
        self.assertEqual(categories.classify(path, "my_problem"), (None, None))
        rows = categories.read_table(path)
        self.assertEqual(len([r for r in rows if r["problem_id"]]), 100)  # KernelBench Level 1

    def test_prefix_rows(self):
        table = [{"problem_id": "", "problem": "my_soft*", "category": "softmax", "op": "softmax"},
                 {"problem_id": "", "problem": "my_softmax_log*", "category": "softmax", "op": "log_softmax"},
                 {"problem_id": "", "problem": "my_softmax_exact", "category": "x", "op": ""}]
        self.assertEqual(categories.lookup(table, "my_softmax_4096")["op"], "softmax")
        self.assertEqual(categories.lookup(table, "my_softmax_log_4096")["op"], "log_softmax")  # longest
        self.assertEqual(categories.lookup(table, "my_softmax_exact")["category"], "x")  # exact first
        self.assertIsNone(categories.lookup(table, "other"))

    def test_bad_table(self):
        from reach_kb.errors import UserError
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write("problem_id,problem,category,op\n1,a,b\n")
        try:
            with self.assertRaises(UserError) as cm:
                categories.read_table(f.name)
            self.assertIn(": line 2: expected 4 fields", cm.exception.line)
        finally:
            os.remove(f.name)


class Thresholds(unittest.TestCase):
    def test_defaults_and_override(self):
        t = thresholds.load(PYDIR, "bf16")
        self.assertEqual(t, {"rel_frobenius": 1e-2, "norm_max_error": 2e-2, "invariant": 2e-2,
                             "written_fraction": 1.0})
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"rel_frobenius": 0.5}')
        try:
            t = thresholds.load(PYDIR, "fp32", f.name)
        finally:
            os.remove(f.name)
        self.assertEqual(t["rel_frobenius"], 0.5)
        self.assertEqual(t["norm_max_error"], 5e-3)


class Profiling(unittest.TestCase):
    SOURCE = '''
source = r"""
template <typename T>
__global__ void scale_kernel(const T* x, T* y, int n) {}
__global__ void __launch_bounds__(256) bounded_kernel(float* y) {}
"""
import triton
import triton.language as tl

@triton.autotune(configs=[], key=["n"])
@triton.jit
def fused_softmax(x_ptr, n):
    pass

def helper():
    pass
'''

    def test_own_names(self):
        self.assertEqual(profiling.own_kernel_names(self.SOURCE),
                         ["bounded_kernel", "fused_softmax", "scale_kernel"])

    def test_origin(self):
        own = ["scale_kernel", "fused_softmax"]
        self.assertEqual(profiling.origin("void scale_kernel<float>(float const*, float*, int)", own), "candidate")
        self.assertEqual(profiling.origin("fused_softmax", own), "candidate")
        self.assertEqual(profiling.origin("fused_softmax_v2", own), "unknown")  # whole words only
        self.assertEqual(profiling.origin("triton_poi_fused_add_0", own), "inductor")
        self.assertEqual(profiling.origin(
            "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)", own), "library")
        self.assertEqual(profiling.origin("sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128", own), "library")

    def test_library_fallback(self):
        _, fb, note = profiling.summarize({"void at::native::softmax_warp_forward<float>(...)": 1}, ["my_kernel"])
        self.assertTrue(fb)
        self.assertIn("library fallback", note)
        _, fb, _ = profiling.summarize({"my_kernel": 1, "void at::native::fill_kernel(...)": 1}, ["my_kernel"])
        self.assertFalse(fb)
        _, fb, _ = profiling.summarize({"mystery_kernel": 1}, [])
        self.assertFalse(fb)  # unknown kernels get the benefit of the doubt
        _, fb, _ = profiling.summarize({}, [])
        self.assertIsNone(fb)


class Report(unittest.TestCase):
    def test_strict_json(self):
        text = report.dumps({"a": float("nan"), "b": [float("inf"), 1.5], "c": (1, 2)})
        self.assertEqual(text, '{"a": null, "b": [null, 1.5], "c": [1, 2]}')

    def test_worst(self):
        self.assertTrue(math.isnan(report.worst([0.1, float("nan"), 0.3])))
        self.assertEqual(report.worst([0.1, 0.3]), 0.3)
        self.assertEqual(report.worst([0.1, 0.3], larger_is_worse=False), 0.1)
        self.assertFalse(report.at_most(float("nan"), 1.0))


@needs_torch
class InvariantsUnit(unittest.TestCase):
    def test_softmax_axis_and_chunked_sum(self):
        import torch
        from reach_kb.invariants import Invariants
        x = torch.rand(3, 2048, dtype=torch.float64)
        ref = torch.softmax(x, dim=1)
        chunked = torch.softmax(x.reshape(3, 2, 1024), dim=2).reshape(3, 2048)
        notes = []
        inv = Invariants("softmax", None, notes)
        good = {c["name"]: c for c in inv.evaluate(ref.clone(), ref, lambda: [x], 1e-3)}
        self.assertEqual(inv.axes, (1,))
        self.assertTrue(good["invariant:row_sum"]["passed"])
        bad = {c["name"]: c for c in inv.evaluate(chunked, ref, lambda: [x], 1e-3)}
        self.assertAlmostEqual(bad["invariant:row_sum"]["value"], 1.0, places=9)  # rows sum to 2
        self.assertFalse(bad["invariant:row_sum"]["passed"])
        nan = ref.clone()
        nan[0, 0] = float("nan")  # an unwritten element enters as NaN: never passes
        res = {c["name"]: c for c in inv.evaluate(nan, ref, lambda: [x], 1e-3)}
        self.assertFalse(res["invariant:row_sum"]["passed"])
        self.assertFalse(res["invariant:range"]["passed"])

    def test_layernorm_skipped_when_affine_params_trained(self):
        import torch
        from reach_kb.invariants import Invariants
        m = torch.nn.LayerNorm(8)
        with torch.no_grad():
            m.weight.fill_(2.0)
        notes = []
        inv = Invariants("layernorm", m, notes)
        self.assertFalse(inv.active)
        self.assertIn("not all ones", notes[0])


if __name__ == "__main__":
    unittest.main()


class ExtensionDirs(unittest.TestCase):
    """Two candidates whose load_inline extensions share a name must not share a build directory
    (the H200 run where three KernelBench adversarial kernels, all named "fast_matmul", ran one
    object); the same bytes must find the same directory again."""

    def test_build_directory_follows_the_source(self):
        import tempfile
        from reach_kb import environment
        with tempfile.TemporaryDirectory() as d:
            a, b, c = (os.path.join(d, n) for n in ("a.py", "b.py", "c.py"))
            for path, text in ((a, "name='fast_matmul' # 1"), (b, "name='fast_matmul' # 2"),
                               (c, "name='fast_matmul' # 1")):
                with open(path, "w") as f:
                    f.write(text)
            cache = os.path.join(d, "cache")
            da, db, dc = (environment.extension_dir(cache, p) for p in (a, b, c))
            self.assertNotEqual(da, db)
            self.assertEqual(da, dc)
            self.assertTrue(da.startswith(os.path.join(cache, "torch_extensions")))
            old = os.environ.get("TORCH_EXTENSIONS_DIR")
            try:
                environment.set_cache_dir(cache, b)
                self.assertEqual(os.environ["TORCH_EXTENSIONS_DIR"], db)
                self.assertTrue(os.path.isdir(db))
            finally:
                if old is None:
                    os.environ.pop("TORCH_EXTENSIONS_DIR", None)
                else:
                    os.environ["TORCH_EXTENSIONS_DIR"] = old
