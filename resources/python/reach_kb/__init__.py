"""Reach's worker for KernelBench-format candidates (a `ModelNew` judged against a problem's `Model`).

The entry point is `reach_kbworker.py` beside this package; docs/kernelbench.md is the contract.
Only the standard library is imported at module level so that `probe` answers without PyTorch.
"""

WORKER_VERSION = "1"

# The KernelBench evaluator whose verdict `kernelbench` reproduces (read in its source, not copied).
KERNELBENCH_REPRODUCED = "KernelBench 423217d (2026-03-05) eval_kernel_against_ref"
