// VerifyQueue with several workers (one per GPU or configured slot), driving the batch fake
// verifier (tests/core/batch/fakebatchverifier.cpp): jobs run side by side, each on its slot's
// GPU (CUDA_VISIBLE_DEVICES), per-slot progress, Cancel kills every running job, and new slots
// wait until the queue is idle.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "ui/verify/verifyqueue.h"

using reach::VerifyJob;
using reach::VerifyOutcome;
using reach::VerifyQueue;
using reach::VerifySlot;

namespace {

QList<VerifyJob> jobs(const QTemporaryDir& dir, int n, const QString& text) {
    QList<VerifyJob> out;
    for (int i = 0; i < n; ++i) {
        const QString path = dir.filePath(QStringLiteral("c%1.cu").arg(i));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write((text + QStringLiteral(" id=%1\n").arg(i)).toUtf8());
        VerifyJob j;
        j.recordKey = QStringLiteral("c%1").arg(i);
        j.problemPath = dir.filePath(QStringLiteral("problem.json"));
        j.candidatePath = path;
        out << j;
    }
    return out;
}

}  // namespace

class VerifyQueueSlotsTest : public QObject {
    Q_OBJECT
private slots:
    void jobsRunSideBySideEachOnItsSlotsGpu();
    void cancelKillsEveryRunningJob();
    void newSlotsWaitForTheQueueToBeIdle();
    void slotsForSpreadsOverEveryGpuFirst();
};

void VerifyQueueSlotsTest::jobsRunSideBySideEachOnItsSlotsGpu() {
    QTemporaryDir dir;
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_BATCH_VERIFIER));
    queue.setWorkerSlots(VerifyQueue::workerSlotsFor({"0", "1", "2", "3"}, 1));
    QCOMPARE(queue.slotCount(), 4);
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    QSignalSpy perSlot(&queue, &VerifyQueue::slotProgressChanged);
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    int mostRunning = 0;
    connect(&queue, &VerifyQueue::jobStarted, this,
            [&] { mostRunning = std::max(mostRunning, queue.runningCount()); });
    QElapsedTimer t;
    t.start();
    queue.enqueue(jobs(dir, 12, QStringLiteral("sleep_ms=300")));
    QVERIFY(idle.wait(30000));
    const qint64 ms = t.elapsed();
    QCOMPARE(finished.count(), 12);
    std::set<QString> gpus;
    for (const auto& args : finished) {
        const auto o = args.at(0).value<VerifyOutcome>();
        QCOMPARE(VerifyOutcome::statusKey(o.status), QStringLiteral("finished"));
        QCOMPARE(QString::fromStdString(o.result.verdict), QStringLiteral("pass"));
        gpus.insert(QString::fromStdString(o.result.device.visibleDevices));
    }
    QCOMPARE(gpus, (std::set<QString>{"0", "1", "2", "3"}));
    QCOMPARE(mostRunning, 4);
    QVERIFY2(ms < 12 * 300 / 2, qPrintable(QString::number(ms)));  // not one at a time
    int total = 0;
    for (int d : queue.doneBySlot())
        total += d;
    QCOMPARE(total, 12);
    std::set<int> slotsSeen;
    for (const auto& args : perSlot)
        slotsSeen.insert(args.at(0).toInt());
    QCOMPARE(int(slotsSeen.size()), 4);
}

void VerifyQueueSlotsTest::cancelKillsEveryRunningJob() {
    QTemporaryDir dir;
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_BATCH_VERIFIER));
    queue.setTimeoutMs(60000);
    queue.setWorkerSlots(VerifyQueue::workerSlotsFor({"0", "1"}, 1));
    QSignalSpy started(&queue, &VerifyQueue::jobStarted);
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    queue.enqueue(jobs(dir, 3, QStringLiteral("verdict=hang")));
    QTRY_COMPARE(started.count(), 2);
    QTest::qWait(200);
    queue.cancelAll();
    QVERIFY(idle.wait(10000));
    QCOMPARE(finished.count(), 2);
    for (const auto& args : finished)
        QCOMPARE(args.at(0).value<VerifyOutcome>().status, VerifyOutcome::Status::Cancelled);
    QVERIFY(!queue.busy());
}

void VerifyQueueSlotsTest::newSlotsWaitForTheQueueToBeIdle() {
    QTemporaryDir dir;
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_BATCH_VERIFIER));
    QCOMPARE(queue.slotCount(), 1);  // the default: one worker on the environment's GPUs
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    queue.enqueue(jobs(dir, 2, QStringLiteral("sleep_ms=200")));
    queue.setWorkerSlots(VerifyQueue::workerSlotsFor({"0", "1"}, 1));
    QVERIFY(queue.busy());
    QCOMPARE(queue.runningCount(), 1);  // still the old single worker
    QVERIFY(idle.wait(10000));
    QCOMPARE(queue.slotCount(), 2);
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    queue.enqueue(jobs(dir, 2, QStringLiteral("sleep_ms=200")));
    QCOMPARE(queue.runningCount(), 2);
    QVERIFY(idle.wait(10000));
    QCOMPARE(finished.count(), 2);
}

void VerifyQueueSlotsTest::slotsForSpreadsOverEveryGpuFirst() {
    const QList<VerifySlot> s = VerifyQueue::workerSlotsFor({"0", "1"}, 2);
    QCOMPARE(s.size(), 4);
    QCOMPARE(s[0].gpu, QStringLiteral("0"));
    QCOMPARE(s[1].gpu, QStringLiteral("1"));
    QCOMPARE(s[2].gpu, QStringLiteral("0"));
    QCOMPARE(VerifyQueue::workerSlotsFor({}, 1).size(), 1);
    QVERIFY(VerifyQueue::workerSlotsFor({}, 1)[0].gpu.isEmpty());
}

QTEST_MAIN(VerifyQueueSlotsTest)
#include "verifyqueueslots_test.moc"
