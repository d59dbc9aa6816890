// Session: background loads deliver real workloads, stale results of a project that was
// replaced are dropped (by generation), cancelling stops the jobs and the session goes idle.
#include <QDir>
#include <QSignalSpy>
#include <QTest>

#include "ui/session.h"
#include "uitestsupport.h"

using namespace reach;

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void profilesLoadInTheBackground() {
        Session session;
        QSignalSpy started(&session, &Session::jobStarted);
        QSignalSpy idle(&session, &Session::idle);
        QVERIFY(session.openDefault());
        QCOMPARE(started.count(), 1);
        QVERIFY(session.isBusy());  // openDefault returned before the profiles were read
        QVERIFY(test::waitIdle(session));
        QVERIFY(idle.count() >= 1);
        int measured = 0;
        for (const ProjectWorkload& w : session.workloads()) {
            if (!w.breakdown)
                continue;
            ++measured;
            QVERIFY(w.workload->gpuTimeUs > 0);
            QCOMPARE(w.breakdown->rulesHash, session.rules().hash());
            QCOMPARE(w.origin, QStringLiteral("NVIDIA H200"));
        }
        QCOMPARE(measured, 6);
    }

    void replacedProjectDropsStaleResults() {
        Session session;
        QVERIFY(session.openDefault());  // starts reading the H200 profiles
        const QString publicDir = QStringLiteral(REACH_DATASETS "/profiles/public");
        QVERIFY(session.openProject(publicDir));  // replaces it at once
        QVERIFY(test::waitIdle(session));
        QVERIFY(!session.workloads().empty());
        for (const ProjectWorkload& w : session.workloads()) {
            QVERIFY(!w.published);
            QVERIFY2(QString::fromStdString(w.workload->source).contains("/profiles/public/"),
                     qPrintable(QString::fromStdString(w.workload->source)));
        }
    }

    void cancelStopsTheJobs() {
        Session session;
        QVERIFY(session.openProject(QStringLiteral(REACH_DATASETS "/profiles/h200")));
        session.cancelJobs();
        QVERIFY(test::waitIdle(session, 60000));
        QVERIFY(!session.isBusy());
        // What arrived before the stop is kept, never more than the directory holds.
        QVERIFY(session.workloads().size() <= 6);
    }

    void badFileIsReportedNotFatal() {
        Session session;
        QSignalSpy errors(&session, &Session::loadError);
        QVERIFY(session.openProject(QStringLiteral(REACH_SOURCE_DIR "/tests/data/bad")));
        QVERIFY(test::waitIdle(session, 60000));
        QVERIFY(errors.count() >= 1);
        // One line naming the file.
        QVERIFY(errors.front().front().toString().contains(REACH_SOURCE_DIR "/tests/data/bad/"));
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
