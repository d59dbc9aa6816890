"""KernelBench's tolerance is one table (resources/oracle/thresholds.json, kernelbench_tolerance),
read by the judge, by KernelBench's reproduction and, compiled in, by the C++ oracle
(VerifyOracle.KernelBenchsToleranceIsThatOfTheOutputsPrecision): 1e-4 in fp32, 1e-2 below."""

import json
import os
import unittest

import workerutil  # noqa: F401 - puts the worker's package on the path

from reach_kb import thresholds
from reach_kb.errors import UserError

TABLE = os.path.join(workerutil.REPO, "resources", "oracle", "thresholds.json")


class KernelBenchTolerance(unittest.TestCase):
    def test_one_table_for_every_reader(self):
        with open(TABLE) as f:
            table = json.load(f)["kernelbench_tolerance"]
        self.assertEqual({p: table[p] for p in ("fp32", "fp16", "bf16")},
                         {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2})
        for p in ("fp32", "fp16", "bf16"):
            self.assertEqual(thresholds.kernelbench_tolerance(p), table[p])

    def test_the_reproductions_document_says_the_precisions_tolerance(self):
        from argparse import Namespace
        from reach_kb import kbverdict
        args = Namespace(problem="p.py", candidate="c.py", precision="fp32", device="cpu", trials=5,
                         perf_trials=100, tolerance=None, seed=42, backend=None, no_timing=False)
        self.assertEqual(kbverdict.skeleton(args)["tolerance"], 1e-4)

    def test_a_table_without_the_key_is_one_line(self):
        with self.assertRaises(UserError) as e:
            thresholds.kernelbench_tolerance("fp8")
        self.assertIn("kernelbench_tolerance.fp8", e.exception.line)


if __name__ == "__main__":
    unittest.main()
