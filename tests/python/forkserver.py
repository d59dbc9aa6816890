"""A fork server for the tests: imports PyTorch once, then runs each worker job in a fresh forked
child that executes resources/python/reach_kbworker.py as `__main__` (runpy) with the job's argv,
its stdout and stderr redirected to files. The child is a separate process, as under Reach; only
the 1.5 s `import torch` is shared. It never runs a tensor operation itself, so no thread pool
exists when it forks. Protocol: one JSON line per request on stdin
({"args": [...], "stdout": path, "stderr": path}), one JSON line back ({"rc": n}).
Set REACH_TEST_EXEC=1 to run every job with a plain exec instead.
"""

import json
import os
import runpy
import sys

import torch  # noqa: F401  (the point of this server)

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "python",
                      "reach_kbworker.py")


def child(req):
    out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(err, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.chdir(req["cwd"])
    sys.argv = [WORKER] + req["args"]
    code = 0
    try:
        runpy.run_path(WORKER, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 99
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(code)


def main():
    for line in sys.stdin:
        req = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            child(req)
        _, status = os.waitpid(pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        sys.stdout.write(json.dumps({"rc": rc}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
