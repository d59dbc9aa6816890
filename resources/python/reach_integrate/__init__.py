"""Reach's integration run (docs/integration.md): a PyTorch workload run as it is and with the
verified winners of its own benchmark in place of their operators, under the profiler.

A workload marks its steps with `reach_step()` (or with `torch.profiler`'s `prof.step()`, which
integrate maps onto it). Run outside `reach-cli integrate`, `reach_step()` does nothing.

    from reach_integrate import reach_step
    for batch in data:
        train_or_infer(batch)
        reach_step()
"""

from .steps import reach_step  # noqa: F401
