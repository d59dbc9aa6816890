// File > Profile a Command... (ui/dialogs/profiledialog.h): the real reach-cli profile records a
// small training workload on this machine's CPU PyTorch, its progress in the log and what the
// recording serves at the end; Cancel stops a workload that would run for a minute; a GPU
// recording (here from a stand-in reach-cli that answers as a GPU machine's would) is opened in
// the window's project.
#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/profiledialog.h"
#include "ui/mainwindow.h"
#include "ui/session.h"

using namespace reach;

class ProfileDialogTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { reach::test::setUpDeterministicGui(); }
    void argumentsSayWhatTheFormSays();
    void aCpuRecordingShowsWhatItServes();
    void cancelStopsARunningWorkload();
    void aGpuRecordingIsOpenedInTheProject();
};

void ProfileDialogTest::argumentsSayWhatTheFormSays() {
    ProfileForm f;
    f.python = QStringLiteral("/usr/bin/python3");
    f.script = QStringLiteral("/w/train.py");
    f.arguments = QStringLiteral("--batch 8 --name \"two words\"");
    f.device = QStringLiteral("cpu");
    f.warmup = 1;
    f.steps = 4;
    f.trace = QStringLiteral("/w/t.json.gz");
    QCOMPARE(
        ProfileDialog::arguments(f).join(QLatin1Char('|')),
        QStringLiteral("profile|--device|cpu|--warmup|1|--steps|4|--out|/w/t.json.gz|--json|--|"
                       "/usr/bin/python3|/w/train.py|--batch|8|--name|two words"));
    ProfileDialog dialog;
    dialog.setForm(f);
    QCOMPARE(ProfileDialog::arguments(dialog.form()), ProfileDialog::arguments(f));
}

void ProfileDialogTest::aCpuRecordingShowsWhatItServes() {
    if (QStringLiteral(REACH_TEST_PYTHON).isEmpty())
        QSKIP("no Python with PyTorch on this machine");
    QTemporaryDir dir;
    ProfileDialog dialog;
    dialog.setCliProgram(QStringLiteral(REACH_CLI_BINARY));
    ProfileForm f;
    f.python = QStringLiteral(REACH_TEST_PYTHON);
    f.script = QStringLiteral(REACH_TEST_DATA "/capture/train_mlp.py");
    f.device = QStringLiteral("cpu");
    f.steps = 3;
    f.trace = dir.filePath(QStringLiteral("mlp.json.gz"));
    dialog.setForm(f);
    QSignalSpy finished(&dialog, &ProfileDialog::finished);
    QSignalSpy ready(&dialog, &ProfileDialog::traceReady);
    dialog.start();
    QVERIFY(dialog.running());
    QVERIFY(finished.wait(90000));
    QCOMPARE(finished.first().first().toInt(), 0);
    const QString log = dialog.log();
    QVERIFY2(log.contains(QStringLiteral("under the profiler")), qPrintable(log));  // progress
    QVERIFY2(log.contains(QStringLiteral("with their input shapes")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("note: recorded on the CPU")), qPrintable(log));
    QVERIFY(QFileInfo(f.trace).size() > 0);
    QCOMPARE(ready.count(), 0);  // nothing to open: no GPU time
    QVERIFY(dialog.status().contains(QStringLiteral("Profiled on the CPU")));
    // To look at it as a user would: REACH_UI_SCREENSHOTS=DIR keeps a picture of the dialog.
    if (const QString shots = qEnvironmentVariable("REACH_UI_SCREENSHOTS"); !shots.isEmpty()) {
        dialog.resize(720, 560);
        dialog.show();
        QVERIFY(dialog.grab().save(shots + QStringLiteral("/profile-dialog.png")));
    }
}

void ProfileDialogTest::cancelStopsARunningWorkload() {
    if (QStringLiteral(REACH_TEST_PYTHON).isEmpty())
        QSKIP("no Python with PyTorch on this machine");
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("slow.py"));
    QFile s(script);
    QVERIFY(s.open(QIODevice::WriteOnly));
    s.write("import time\nimport torch\nfor _ in range(600):\n    time.sleep(0.1)\n");
    s.close();
    ProfileDialog dialog;
    dialog.setCliProgram(QStringLiteral(REACH_CLI_BINARY));
    ProfileForm f;
    f.python = QStringLiteral(REACH_TEST_PYTHON);
    f.script = script;
    f.device = QStringLiteral("cpu");
    f.trace = dir.filePath(QStringLiteral("slow.json.gz"));
    dialog.setForm(f);
    QSignalSpy finished(&dialog, &ProfileDialog::finished);
    dialog.start();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.log().contains(QStringLiteral("under the profiler")), 20000);
    QElapsedTimer t;
    t.start();
    dialog.cancel();
    QVERIFY(finished.wait(10000));
    QVERIFY2(t.elapsed() < 8000, qPrintable(QString::number(t.elapsed())));
    QVERIFY(!dialog.running());
    QVERIFY(dialog.status().startsWith(QStringLiteral("Cancelled")));
    QVERIFY(!QFile::exists(f.trace));
}

void ProfileDialogTest::aGpuRecordingIsOpenedInTheProject() {
    // A stand-in reach-cli: what a GPU machine's prints (a breakdown), naming a real GPU trace.
    QTemporaryDir dir;
    const QString trace = QStringLiteral(REACH_TEST_DATA "/kineto/serving_vllm.json");
    const QString cli = dir.filePath(QStringLiteral("reach-cli"));
    QFile c(cli);
    QVERIFY(c.open(QIODevice::WriteOnly));
    c.write(QStringLiteral("#!/bin/sh\necho 'reach-cli profile: running' >&2\n"
                           "echo '{\"trace\": \"%1\", \"breakdown\": {\"gpu_time_us\": 353}, "
                           "\"extraction\": {\"problems\": 5, \"covered_share_of_addressable\": "
                           "0.907}, \"recording\": {}, \"advice\": []}'\n")
                .arg(trace)
                .toUtf8());
    c.close();
    c.setPermissions(c.permissions() | QFileDevice::ExeOwner);
    MainWindow window;
    QAction* action = window.findChild<QAction*>(QStringLiteral("profileCommand"));
    QVERIFY(action);
    action->trigger();
    ProfileDialog* dialog = window.profileDialog();
    QVERIFY(dialog);
    dialog->setCliProgram(cli);
    ProfileForm f;
    f.script = QStringLiteral(REACH_TEST_DATA "/capture/train_mlp.py");
    dialog->setForm(f);
    const int before = int(window.session()->project().workloads.size());
    QSignalSpy finished(dialog, &ProfileDialog::finished);
    dialog->start();
    QVERIFY(finished.wait(10000));
    QVERIFY2(dialog->log().contains(QStringLiteral("extraction would cover 90.7 %")),
             qPrintable(dialog->log()));
    QTRY_COMPARE_WITH_TIMEOUT(int(window.session()->project().workloads.size()), before + 1, 20000);
    dialog->close();
}

QTEST_MAIN(ProfileDialogTest)
#include "profiledialog_test.moc"
