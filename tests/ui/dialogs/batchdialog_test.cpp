// The batch dialog (ui/batchdialog.h): the queue's GPU workers set from it and their progress
// shown worker by worker; a Slurm batch's command line; and a Slurm run through a stand-in
// reach-cli whose result lines make the window reread the project.
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/batchdialog.h"
#include "ui/verify/verifyqueue.h"

using namespace reach;

class BatchDialogTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { reach::test::setUpDeterministicGui(); }
    void slotsAppliedToTheQueueShowProgressPerGpu();
    void slurmArgumentsSayWhatTheFormSays();
    void aSlurmRunsResultsMakeTheProjectReread();
};

void BatchDialogTest::slotsAppliedToTheQueueShowProgressPerGpu() {
    QTemporaryDir dir;
    VerifyQueue queue;
    queue.setProgram(QStringLiteral(REACH_FAKE_BATCH_VERIFIER));
    BatchDialog dialog(&queue, QString());
    auto* gpus = dialog.findChild<QLineEdit*>(QStringLiteral("gpus"));
    QVERIFY(gpus);
    gpus->setText(QStringLiteral("0,1"));
    dialog.applySlots();
    QCOMPARE(queue.slotCount(), 2);
    QCOMPARE(queue.workerSlots()[1].gpu, QStringLiteral("1"));
    QList<VerifyJob> jobs;
    for (int i = 0; i < 4; ++i) {
        const QString c = dir.filePath(QStringLiteral("c%1.cu").arg(i));
        QFile f(c);
        f.open(QIODevice::WriteOnly);
        f.write("sleep_ms=50\n");
        VerifyJob j;
        j.recordKey = QStringLiteral("c%1").arg(i);
        j.problemPath = dir.filePath(QStringLiteral("problem.json"));
        j.candidatePath = c;
        jobs << j;
    }
    QSignalSpy idle(&queue, &VerifyQueue::idle);
    queue.enqueue(jobs);
    QVERIFY(idle.wait(10000));
    QStringList texts;
    for (QProgressBar* b : dialog.findChildren<QProgressBar*>())
        texts << b->format();
    QCOMPARE(texts.size(), 2);
    QVERIFY2(texts[0].startsWith(QStringLiteral("GPU 0: ")) &&
                 texts[0].endsWith(QStringLiteral(" done")),
             qPrintable(texts.join(QStringLiteral(" | "))));
    QVERIFY(texts[1].startsWith(QStringLiteral("GPU 1: ")));
    int done = 0;
    for (int d : queue.doneBySlot())
        done += d;
    QCOMPARE(done, 4);
}

void BatchDialogTest::slurmArgumentsSayWhatTheFormSays() {
    SlurmForm f;
    f.project = QStringLiteral("/p/x.reach");
    f.selection = QStringLiteral("suspicious");
    f.partition = QStringLiteral("h200");
    f.time = QStringLiteral("01:00:00");
    f.arrayLimit = 8;
    f.jobsPerTask = 5;
    const QStringList a = BatchDialog::slurmArguments(f);
    QCOMPARE(a.mid(0, 7), (QStringList{"verify", "--batch", "/p/x.reach", "--project", "/p/x.reach",
                                       "--slurm", "--gres=gpu:1"}));
    for (const char* want : {"--suspicious", "--partition", "h200", "--time", "01:00:00",
                             "--array-limit", "8", "--jobs-per-task", "5"})
        QVERIFY2(a.contains(QLatin1String(want)), want);
    QVERIFY(!a.contains(QStringLiteral("--slurm-dir")));
}

void BatchDialogTest::aSlurmRunsResultsMakeTheProjectReread() {
    QTemporaryDir dir;
    const QString cli = dir.filePath(QStringLiteral("reach-cli"));
    QFile f(cli);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "#!/bin/sh\necho \"submitted Slurm job 7: 1 array task(s)\"\n"
        "echo \"batch directory: /shared/b1\"\n"
        "echo \"pass          GPU 0        10.00 us   1.250x  #3 softmax\"\n"
        "exit 1\n");
    f.close();
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    VerifyQueue queue;
    BatchDialog dialog(&queue, QStringLiteral("/p/x.reach"));
    dialog.setCliProgram(cli);
    QSignalSpy changed(&dialog, &BatchDialog::projectChanged);
    QSignalSpy finished(&dialog, &BatchDialog::slurmFinished);
    dialog.startSlurm(BatchDialog::slurmArguments(dialog.form()));
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toInt(), 1);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(changed.at(0).at(0).toString(), QStringLiteral("/p/x.reach"));
    QVERIFY(dialog.slurmLog().contains(QStringLiteral("#3 softmax")));
    QCOMPARE(dialog.form().directory, QStringLiteral("/shared/b1"));  // Watch and Resubmit use it
}

QTEST_MAIN(BatchDialogTest)
#include "batchdialog_test.moc"
