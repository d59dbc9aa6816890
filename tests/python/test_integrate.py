"""reach_integrate (resources/python/reach_integrate): what decides which calls a verified
candidate replaces."""

import os
import sys
import unittest

from workerutil import REPO, needs_torch

DATA = os.path.join(REPO, "tests", "data", "integrate")


@needs_torch
class Signature(unittest.TestCase):
    def learn(self, path, operator):
        from reach_integrate import substitute
        from reach_kb import loading
        w = substitute.Winner.__new__(substitute.Winner)
        w.problem = loading.load_problem(path, "reach")
        w.operator, w.problem_path = operator, path
        w._learn_signature()
        return w

    def live(self, fn, name):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from reach_integrate import substitute
        seen = []

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if func._schema.name == name:
                    seen.append(substitute.signature(func, args, kwargs))
                return func(*args, **(kwargs or {}))

        with torch.no_grad(), Watch():
            fn()
        return seen

    def test_a_module_call_with_trailing_defaults_has_the_problems_signature(self):
        # The problem passes every argument; nn.EmbeddingBag leaves the trailing defaults out.
        # On the H200 the first integration of DLRM substituted nothing for this reason.
        import torch
        w = self.learn(os.path.join(DATA, "embedding_bag_small.py"), "aten::_embedding_bag")
        emb = torch.nn.EmbeddingBag(1000, 16, mode="sum")
        idx = torch.randint(0, 1000, (256,))
        seen = self.live(lambda: emb(idx, torch.arange(32) * 8), "aten::_embedding_bag")
        self.assertEqual(seen, [w.signature])
        self.assertEqual(w.paths, [("args", 0), ("args", 1), ("args", 2)])
        # Another bag size is another signature, and mean another mode.
        seen = self.live(lambda: emb(idx, torch.arange(64) * 4), "aten::_embedding_bag")
        self.assertNotEqual(seen, [w.signature])
        mean = torch.nn.EmbeddingBag(1000, 16, mode="mean")
        seen = self.live(lambda: mean(idx, torch.arange(32) * 8), "aten::_embedding_bag")
        self.assertNotEqual(seen, [w.signature])

    def test_layout_is_part_of_the_signature(self):
        from reach_integrate import substitute
        import torch
        x = torch.randn(2, 3, 4, 5)
        op = torch.ops.aten.clamp_min.default
        a = substitute.signature(op, (x, 0), {})
        b = substitute.signature(op, (x.contiguous(memory_format=torch.channels_last), 0), {})
        c = substitute.signature(op, (x, 0.0), {})
        self.assertNotEqual(a, b)
        self.assertEqual(a, c)  # 0 and 0.0 are the same clamp


if __name__ == "__main__":
    unittest.main()
