#!/usr/bin/env python3
"""Reach's worker for KernelBench-format candidates: one job, one JSON document on stdout.

    python3 reach_kbworker.py probe
    python3 reach_kbworker.py kernelbench --problem P.py --candidate C.py [...]
    python3 reach_kbworker.py reach --problem P.py --candidate C.py [...]

The contract (options, JSON keys, exit status) is docs/kernelbench.md.
"""

import os
import sys

WORKER_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, WORKER_DIR)

from reach_kb.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], WORKER_DIR))
