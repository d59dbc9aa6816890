# A candidate that, at import, writes what its process can reach to $REACH_TEST_REPORT_DIR (when
# set): the worker mode it runs in, the names of its environment variables and the targets of
# its open descriptors. A job of the warm worker server must find nothing naming the server
# there (issue 36): no REACH_KB_SERVER* variable, no socket of the server's. Otherwise it computes
# the right answer.
import json
import os
import sys

import torch.nn as nn


def _report():
    folder = os.environ.get("REACH_TEST_REPORT_DIR")
    if not folder:
        return
    fds = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            fds[name] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            pass  # the listing's own descriptor, closed by now
    doc = {"argv": sys.argv[1:2], "env": sorted(os.environ), "fds": fds}
    with open(os.path.join(folder, f"report-{os.getpid()}.json"), "w") as f:
        json.dump(doc, f)


_report()


class ModelNew(nn.Module):
    def forward(self, a, b):
        return a + b
