"""The Python oracle gives the numbers the C++ one gives, on the same arrays (issue 39).

tests/data/oracle/parity.json holds each case's inputs and the numbers docs/verifier.md says an
oracle must give, written by tests/data/oracle/make_parity.py in plain float64 Python; the C++
side (tests/core/verify/oracle_parity_test.cpp, core/verify/oracle.cpp and the operators'
invariants) reads the same file. A drift on either side fails its own test, naming the case."""

import json
import math
import os
import unittest

import workerutil  # noqa: F401 - puts the worker's package on the path
from workerutil import needs_torch

PARITY = os.path.join(workerutil.REPO, "tests", "data", "oracle", "parity.json")


def num(v):
    """A number of the file: the strings "nan", "inf", "-inf" stand for what JSON cannot hold."""
    return float(v) if isinstance(v, str) else v


def close(a, b):
    a, b = num(a), num(b)
    if isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@needs_torch
class OracleParity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(PARITY) as f:
            cls.doc = json.load(f)

    def tensors(self, c):
        import torch
        dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[c["dtype"]]
        ref = torch.tensor([[num(v) for v in row] for row in c["reference"]], dtype=torch.float64)
        unwritten = torch.tensor([[v is None for v in row] for row in c["output"]])
        # The judge's slot holds an unwritten element as the allocator's all-ones pattern, a NaN.
        out = torch.tensor([[math.nan if v is None else num(v) for v in row] for row in c["output"]],
                           dtype=torch.float64).to(dtype)
        x = torch.tensor([[num(v) for v in row] for row in c["x"]], dtype=torch.float64)
        return dtype, ref, out, unwritten, x

    def test_metrics(self):
        from reach_kb import oracle, thresholds
        for c in self.doc["cases"]:
            with self.subTest(c["name"]):
                dtype, ref, out, unwritten, _ = self.tensors(c)
                tol = thresholds.kernelbench_tolerance({"f32": "fp32", "bf16": "bf16"}[c["dtype"]])
                self.assertEqual(tol, self.doc["kernelbench_tolerance"][c["dtype"]])
                m = oracle.compare(out, ref, unwritten, kb_dtype=dtype, kb_tol=tol)
                e = c["expect"]
                for key in ("rel_frobenius", "norm_max_error"):
                    self.assertTrue(close(m[key], e[key]), f"{key}: {m[key]} != {e[key]}")
                self.assertEqual(m["written_count"] / m["total_count"], e["written_fraction"])
                self.assertEqual(m["non_finite"], e["non_finite"])
                self.assertEqual(m["kernelbench_allclose"], e["kernelbench_allclose"])
                self.assertEqual(m["zeros_pass_kernelbench"], e["zeros_pass_kernelbench"])

    def test_invariants(self):
        import torch
        from reach_kb.invariants import Invariants
        category = {"sum_rows": "reduction_sum"}
        for c in self.doc["cases"]:
            with self.subTest(c["name"]):
                _, ref, out, _, x = self.tensors(c)
                inv = Invariants(category.get(c["op"], c["op"]), None, [])
                checks = inv.evaluate(out.to(torch.float64), ref, lambda: [x], 0.02)
                got = {k["name"].split(":", 1)[1]: k for k in checks}
                want = c["expect"]["invariants"]
                self.assertEqual(sorted(got), sorted(want))
                for name, w in want.items():
                    self.assertTrue(close(got[name]["value"], w["value"]),
                                    f"{name}: {got[name]['value']} != {w['value']}")
                    limit = 0.02 if w["threshold"] == "invariant" else w["threshold"]
                    self.assertEqual(got[name]["threshold"], limit, name)


if __name__ == "__main__":
    unittest.main()
