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


class LockFiles(unittest.TestCase):
    """A lock and a queue file of the test's own, named as a controller names them."""

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


class GpuLockQueue(LockFiles):
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


class FakeTorch:
    """Just what reachverdict._copy_bandwidth touches: each copy asks whether another job could
    take the GPU's lock now, and the events give the times listed."""
    uint8 = "uint8"

    def __init__(self, lock, times_ms):
        self.lock, self.times, self.others_could_lock = lock, list(times_ms), []
        torch = self

        class Buffer:
            def fill_(self, v):
                return self

            def copy_(self, other):
                fd = os.open(torch.lock, os.O_RDWR)
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    torch.others_could_lock.append(True)
                except BlockingIOError:
                    torch.others_could_lock.append(False)
                finally:
                    os.close(fd)

        class Event:
            def __init__(self, enable_timing=False):
                pass

            def record(self):
                pass

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return torch.times.pop(0)

        class Cuda:
            pass

        self.Buffer = Buffer
        self.cuda = Cuda()
        self.cuda.Event = Event
        self.cuda.empty_cache = lambda: None

    def empty(self, n, dtype=None, device=None):
        return self.Buffer()


class RooflineBandwidth(LockFiles):
    """The roofline's memory ceiling (reachverdict._copy_bandwidth) is measured alone on the GPU
    and is the fastest copy: measured beside other jobs it read 15 % low on an H100 and called an
    honest 19_ReLU faster than physics (docs/measurements/2026-12-07-verdicts-under-load.md)."""

    def test_no_other_job_runs_while_it_copies_and_the_fastest_copy_counts(self):
        from reach_kb import reachverdict
        gpulock.hold_shared()  # as a job holds it, from its first GPU work on
        times = [9.0, 9.0] + [0.5, 0.4, 0.2, 0.6, 0.5, 0.5, 0.45, 0.5, 0.55, 0.5]
        fake = FakeTorch(self.lock, times)
        gbs = reachverdict._copy_bandwidth(fake, "cuda:0")
        self.assertEqual(fake.others_could_lock, [False] * 12)
        self.assertAlmostEqual(gbs, 2.0 * (256 << 20) / (0.2e-3) / 1e9)
        # Afterwards the job holds the lock shared again: others may go on.
        fd = os.open(self.lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        finally:
            os.close(fd)


if __name__ == "__main__":
    unittest.main()
