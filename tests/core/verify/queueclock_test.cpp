// A job's waits for its GPU are not its work (issue 38): runChild stops the job's clock while the
// job reports a wait in $REACH_QUEUE_FILE (core/verify/queueclock.h), bounds the waiting apart,
// and never lets a record add time that did not pass.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/verify/childprocess.h"
#include "core/verify/queueclock.h"

using namespace reach;

namespace {

// A shell job that reports a wait of `wait` seconds (the record a waiting job writes), then
// works `work` seconds. The record is written in place (`1<>`, as the real writers pwrite it):
// `>` would empty the file first, and a controller reading in between would see no wait.
std::vector<std::string> waitingJob(double wait, double work) {
    const std::string script = "printf '%-63s\\n' \"0 $MONO\" 1<> \"$REACH_QUEUE_FILE\"; sleep " +
                               std::to_string(wait) + "; printf '%-63s\\n' \"" +
                               std::to_string(wait) + " 0\" 1<> \"$REACH_QUEUE_FILE\"; sleep " +
                               std::to_string(work) + "; echo done";
    return {"/bin/sh", "-c", script};
}

// The job learns the controller's clock through the environment (sh has no CLOCK_MONOTONIC).
std::string monoNow() {
    return "MONO=" + std::to_string(monotonicSeconds());
}

}  // namespace

TEST(QueueClock, ARecordIsReadAndNeverAddsTimeThatDidNotPass) {
    EXPECT_DOUBLE_EQ(parseQueueRecord("2.5 0").total, 2.5);
    EXPECT_DOUBLE_EQ(parseQueueRecord("2.5 0").since, 0);
    EXPECT_DOUBLE_EQ(parseQueueRecord("1 12345.5\n").since, 12345.5);
    for (const char* bad : {"", "x", "-1 0", "nan 0", "1e300 0", "inf 5"})
        EXPECT_DOUBLE_EQ(parseQueueRecord(bad).total, 0) << bad;

    unsetenv("REACH_QUEUE_FILE");
    QueueFile q = QueueFile::make();
    ASSERT_FALSE(q.path().empty());
    EXPECT_DOUBLE_EQ(q.queuedSeconds(10), 0);
    // A hostile record: a wait since long ago, a total past the job's life.
    std::ofstream(q.path()) << "500 1\n";
    EXPECT_DOUBLE_EQ(q.queuedSeconds(3), 3);  // clamped to the time that passed
    std::ofstream(q.path()) << "0.5 " << monotonicSeconds() + 1000 << "\n";  // a wait to come
    EXPECT_DOUBLE_EQ(q.queuedSeconds(3), 0.5);
    const std::string path = q.path();
    {
        QueueFile moved = std::move(q);
        EXPECT_EQ(moved.path(), path);
    }
    EXPECT_NE(access(path.c_str(), F_OK), 0);  // the file it made is gone with it
}

TEST(QueueClock, AWaitIsReportedAndNestedControllersCountFromTheirStart) {
    unsetenv("REACH_QUEUE_FILE");
    QueueFile outer = QueueFile::make();
    setenv("REACH_QUEUE_FILE", outer.path().c_str(), 1);
    {
        const QueueWait first;
        usleep(200000);
    }
    const double afterFirst = outer.queuedSeconds(10);
    EXPECT_GE(afterFirst, 0.19);
    EXPECT_LT(afterFirst, 2);
    // A controller started now (reach-verify under reach-cli) reads the outer file from here.
    QueueFile inner = QueueFile::make();
    EXPECT_EQ(inner.path(), outer.path());
    EXPECT_LT(inner.queuedSeconds(10), 0.01);
    {
        const QueueWait second;
        usleep(200000);
        EXPECT_GE(inner.queuedSeconds(10), 0.19);  // a wait still going on counts
    }
    EXPECT_GE(outer.queuedSeconds(10), afterFirst + 0.19);  // the totals add up
    unsetenv("REACH_QUEUE_FILE");
}

TEST(QueueClock, AJobThatWaitsIsNotTimedOutAndOneThatWaitsTooLongIsBusy) {
    unsetenv("REACH_QUEUE_FILE");
    // 3 s of waiting and 0.5 s of work against a 2 s timeout: it finishes.
    {
        const QueueFile q = QueueFile::make();
        const ChildResult r = runChild(waitingJob(3, 0.5), 2, {monoNow()}, {}, {}, {&q, 60});
        EXPECT_FALSE(r.timedOut);
        EXPECT_FALSE(r.gpuBusy);
        EXPECT_EQ(r.out, "done\n");
        EXPECT_GE(r.queueSeconds, 2.5);
    }
    // The same job without the file is timed out as before: the wait counts.
    {
        const ChildResult r = runChild(waitingJob(3, 0.5), 2, {monoNow()});
        EXPECT_TRUE(r.timedOut);
    }
    // Past the queue limit: killed as busy, never as a hang.
    {
        const QueueFile q = QueueFile::make();
        const ChildResult r = runChild(waitingJob(30, 0.5), 60, {monoNow()}, {}, {}, {&q, 1});
        EXPECT_TRUE(r.gpuBusy);
        EXPECT_FALSE(r.timedOut);
        EXPECT_LT(r.seconds, 10);
    }
    // A job that works past its timeout while claiming nothing: a timeout.
    {
        const QueueFile q = QueueFile::make();
        const ChildResult r = runChild({"/bin/sh", "-c", "sleep 30"}, 1, {}, {}, {}, {&q, 60});
        EXPECT_TRUE(r.timedOut);
        EXPECT_LT(r.seconds, 10);
    }
}
