// VerifyQueue driving a real child process (tests/ui/support/fakeverifier.cpp) that crashes, hangs,
// prints garbage or answers: the queue code under test is the real one, only the verifier
// executable is a stand-in. Also checks that the GUI thread keeps processing events while the
// verifier hangs.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "core/base/resourcepaths.h"
#include "core/verify/kbverify.h"
#include "core/verify/workerserver.h"
#include "ui/verify/verifyqueue.h"

using reach::VerifyJob;
using reach::VerifyOutcome;
using reach::VerifyQueue;

namespace {

VerifyJob job(const QString& candidate) {
    VerifyJob j;
    j.recordKey = candidate;
    j.problemPath = QStringLiteral("problem.json");
    j.candidatePath = candidate;
    j.reps = 5;
    return j;
}

// Largest gap between ticks of a 10 ms timer on the GUI thread while `until` is false.
qint64 maxEventGapMs(const std::function<bool()>& until, int timeoutMs) {
    QElapsedTimer total, since;
    total.start();
    since.start();
    qint64 worst = 0;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] { worst = std::max(worst, since.restart()); });
    tick.start(10);
    while (!until() && total.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return worst;
}

}  // namespace

class VerifyQueueTest : public QObject {
    Q_OBJECT
private slots:
    void crashHangGarbageAndVerdictsEachGiveAnOutcome();
    void cancelKillsTheRunningJobAndDropsTheQueue();
    void missingProgramIsFailedToStart();
    void noGpuRefusesJobs();
    void aKernelBenchJobGetsAWorkerServerConnectionOfItsOwn();
};

void VerifyQueueTest::crashHangGarbageAndVerdictsEachGiveAnOutcome() {
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    queue.setTimeoutMs(1500);
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    QSignalSpy progress(&queue, &VerifyQueue::progressChanged);
    const QList<int> ids = queue.enqueue(
        {job("crash.cu"), job("hang.cu"), job("garbage.cu"), job("pass.cu"), job("fail.cu")});
    QCOMPARE(ids.size(), 5);
    QVERIFY(queue.busy());

    // The hang is killed after 1.5 s; meanwhile the GUI thread must keep turning.
    const qint64 gap = maxEventGapMs([&] { return idle.count() > 0; }, 30000);
    QCOMPARE(idle.count(), 1);
    QVERIFY2(gap < 250, qPrintable(QStringLiteral("GUI thread stalled %1 ms").arg(gap)));
    QCOMPARE(finished.count(), 5);

    QList<VerifyOutcome> out;
    for (const auto& args : finished)
        out << args.at(0).value<VerifyOutcome>();
    for (int i = 0; i < 5; ++i)
        QCOMPARE(out[i].jobId, ids[i]);  // in queue order

    QCOMPARE(out[0].recordKey, QStringLiteral("crash.cu"));
    QCOMPARE(out[0].status, VerifyOutcome::Status::Crashed);
    QVERIFY(out[0].log.contains("simulated illegal memory access"));

    QCOMPARE(out[1].status, VerifyOutcome::Status::TimedOut);
    QVERIFY(out[1].wallMs >= 1400 && out[1].wallMs < 10000);
    QVERIFY(out[1].log.contains("killed after"));

    QCOMPARE(out[2].status, VerifyOutcome::Status::BadOutput);
    QVERIFY(out[2].stdoutJson.isEmpty());

    QCOMPARE(out[3].status, VerifyOutcome::Status::Finished);
    QCOMPARE(out[3].exitCode, 0);
    const QJsonObject pass = QJsonDocument::fromJson(out[3].stdoutJson).object();
    QCOMPARE(pass.value("verdict").toString(), QStringLiteral("pass"));

    // Exit status 1 ("the data says no") is still a finished run with a document.
    QCOMPARE(out[4].status, VerifyOutcome::Status::Finished);
    QCOMPARE(out[4].exitCode, 1);
    QCOMPARE(QJsonDocument::fromJson(out[4].stdoutJson).object().value("verdict").toString(),
             QStringLiteral("fail"));

    const auto last = progress.last();
    QCOMPARE(last.at(0).toInt(), 5);
    QCOMPARE(last.at(1).toInt(), 5);
    QVERIFY(!queue.busy());
}

void VerifyQueueTest::cancelKillsTheRunningJobAndDropsTheQueue() {
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    queue.setTimeoutMs(60000);
    QSignalSpy started(&queue, &VerifyQueue::jobStarted);
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    queue.enqueue({job("hang.cu"), job("pass.cu"), job("pass2.cu")});
    QTRY_COMPARE(started.count(), 1);
    QTest::qWait(200);  // the verifier is running (and hanging) now
    QElapsedTimer t;
    t.start();
    queue.cancelAll();
    QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 5000);
    QVERIFY(t.elapsed() < 3000);
    QCOMPARE(finished.count(), 1);  // the queued jobs never ran
    QCOMPARE(finished.first().at(0).value<VerifyOutcome>().status,
             VerifyOutcome::Status::Cancelled);
    QCOMPARE(started.count(), 1);
    QCOMPARE(queue.totalCount(), 1);

    // The queue is usable again after a cancel.
    queue.enqueue({job("pass.cu")});
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 10000);
    QCOMPARE(finished.last().at(0).value<VerifyOutcome>().status, VerifyOutcome::Status::Finished);
}

void VerifyQueueTest::missingProgramIsFailedToStart() {
    QTemporaryDir dir;
    VerifyQueue queue;
    queue.setProgram(dir.filePath("no-such-reach-verify"));
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    queue.enqueue({job("pass.cu")});
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
    const auto out = finished.first().at(0).value<VerifyOutcome>();
    QCOMPARE(out.status, VerifyOutcome::Status::FailedToStart);
    QVERIFY(out.log.contains("no-such-reach-verify"));
}

void VerifyQueueTest::noGpuRefusesJobs() {
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    QSignalSpy changed(&queue, &VerifyQueue::gpuAvailabilityChanged);
    queue.setGpuAvailable(false, QStringLiteral("no CUDA device"));
    QCOMPARE(changed.count(), 1);
    QVERIFY(queue.enqueue({job("pass.cu")}).isEmpty());
    QVERIFY(!queue.busy());
    QCOMPARE(queue.gpuReason(), QStringLiteral("no CUDA device"));
}

// The GUI's warm worker server (core/verify/workerserver.h, issue 36): a KernelBench-format job's
// verifier inherits a connection of its own, named by $REACH_KB_SERVER_FD; a C++ job's gets none;
// the GUI keeps no copy once the verifier started.
void VerifyQueueTest::aKernelBenchJobGetsAWorkerServerConnectionOfItsOwn() {
    if (QByteArray(REACH_TEST_PYTHON).isEmpty())
        QSKIP("no Python with PyTorch (scripts/deps installs python3-torch)");
    qputenv("REACH_PYTHON", REACH_TEST_PYTHON);
    const auto server = reach::sharedWorkerServer(
        reach::findPython(""), reach::findResourceDir() + "/python/reach_kbserver.py");
    QVERIFY(server);
    QTRY_VERIFY_WITH_TIMEOUT(server->ready(), 120000);  // a job before that runs its workers itself
    QTemporaryDir dir;
    const QString log = dir.filePath("server.log");
    qputenv("REACH_FAKE_VERIFIER_SERVER", log.toUtf8());
    qputenv("REACH_KB_SERVER_FD", "5");  // the GUI's own environment names nothing of the child's
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
    QSignalSpy finished(&queue, &VerifyQueue::jobFinished);
    // The GUI's copy of the connection is closed once the verifier started: no socket of this
    // process's is new after the job.
    const auto sockets = [] {
        QStringList out;
        const QDir fds(QStringLiteral("/proc/self/fd"));
        for (const QString& n : fds.entryList(QDir::System | QDir::NoDotAndDotDot)) {
            const QString target = QFile::symLinkTarget(fds.filePath(n));
            if (target.contains(QStringLiteral("socket:")))
                out << target;
        }
        out.sort();
        return out;
    };
    const QStringList before = sockets();
    QVERIFY(!before.isEmpty());  // the server's control line: the listing sees sockets
    VerifyJob kb = job(QStringLiteral("candidate.py"));
    kb.problemPath = QStringLiteral("problem.py");
    queue.enqueue({kb, job(QStringLiteral("pass.cu"))});
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
    qunsetenv("REACH_FAKE_VERIFIER_SERVER");
    qunsetenv("REACH_KB_SERVER_FD");
    QFile f(log);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].endsWith(QStringLiteral(" stream")), qPrintable(lines[0]));
    QCOMPARE(lines[1], QStringLiteral("none"));
    QCOMPARE(sockets(), before);
}

QTEST_MAIN(VerifyQueueTest)
#include "verifyqueue_test.moc"
