"""The GPU's timing lock as the worker takes it (reach_kb/gpulock.py): a wait for another job is
reported in $REACH_QUEUE_FILE (core/verify/queueclock.h), so that the controller does not count
it as the job's work (issue 38); a lock taken at once reports nothing."""

import fcntl
import os
import tempfile
import threading
import time
import unittest

import workerutil  # noqa: F401 - puts the worker's package on the path

from reach_kb import gpulock


def record(path):
    with open(path) as f:
        total, since = f.read().split()
    return float(total), float(since)


class GpuLockQueue(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.lock = os.path.join(self.dir.name, "gpu.lock")
        self.queue = os.path.join(self.dir.name, "queue")
        with open(self.queue, "w") as f:
            f.write("0 0".ljust(63) + "\n")
        os.environ["REACH_GPU_LOCK"] = self.lock
        os.environ["REACH_QUEUE_FILE"] = self.queue
        gpulock._shared_fd = None

    def tearDown(self):
        if gpulock._shared_fd is not None:
            os.close(gpulock._shared_fd)
            gpulock._shared_fd = None
        for k in ("REACH_GPU_LOCK", "REACH_QUEUE_FILE"):
            os.environ.pop(k, None)
        self.dir.cleanup()

    def hold(self, seconds):
        """Another job holding the lock exclusively for `seconds` (another open file: another
        lock, as another process's)."""
        fd = os.open(self.lock, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)

        def release():
            time.sleep(seconds)
            os.close(fd)

        t = threading.Thread(target=release)
        t.start()
        return t

    def test_a_free_lock_reports_no_wait(self):
        gpulock.hold_shared()
        with gpulock.timing_lock():
            pass
        self.assertEqual(record(self.queue), (0.0, 0.0))

    def test_a_wait_is_reported_and_adds_up(self):
        releaser = self.hold(0.3)
        gpulock.hold_shared()
        releaser.join()
        total, since = record(self.queue)
        self.assertGreaterEqual(total, 0.25)
        self.assertEqual(since, 0.0)  # not waiting any more
        # A second wait, for the timing lock, adds to the first.
        other = os.open(self.lock, os.O_RDWR)
        fcntl.flock(other, fcntl.LOCK_SH)
        threading.Timer(0.3, lambda: os.close(other)).start()
        with gpulock.timing_lock():
            self.assertGreaterEqual(record(self.queue)[0], total + 0.25)

    def test_a_wait_in_progress_says_when_it_began(self):
        releaser = self.hold(0.5)
        seen = []

        def look():
            time.sleep(0.2)
            seen.append(record(self.queue))

        t = threading.Thread(target=look)
        t.start()
        gpulock.hold_shared()
        t.join()
        releaser.join()
        total, since = seen[0]
        self.assertEqual(total, 0.0)
        self.assertGreater(since, 0.0)
        self.assertLessEqual(since, time.monotonic())


if __name__ == "__main__":
    unittest.main()
