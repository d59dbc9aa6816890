// Session: background loads deliver real workloads, stale results of a project that was
// replaced are dropped (by generation), cancelling stops the jobs and the session goes idle.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/records/recordreader.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/session.h"

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
            QCOMPARE(w.origin, std::string("NVIDIA H200"));
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

    void defaultProjectOpensWithTheMeasuredH200Set() {
        Session session;
        QVERIFY(session.openDefault());
        QVERIFY(!session.evaluations().empty());
        const EvaluationSet& first = session.evaluations().front();
        QCOMPARE(first.name, std::string("H200 reach-verify (measured)"));
        // The 40 raw reach-verify documents of datasets/evaluations/h200/raw, each saying it ran
        // on the H200.
        QCOMPARE(first.records.size(), size_t(40));
        for (const EvalRecord& r : first.records)
            QVERIFY2(QString::fromStdString(r.hardware).contains("H200"), r.hardware.c_str());
        QVERIFY(test::waitIdle(session));
    }

    void openingAProjectRestoresItsEvaluationSets() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.reach").toStdString();
        const auto records =
            readRecords(REACH_SOURCE_DIR "/tests/data/records/small.jsonl", RecordReadOptions{});
        {
            ProjectStore store = ProjectStore::open(path);
            importRecordSet(store, "small", "small.jsonl", "reach-jsonl", records);
        }
        Session session;
        QVERIFY(session.openProject(QString::fromStdString(path)));
        QCOMPARE(session.evaluations().size(), size_t(1));
        QCOMPARE(session.evaluations().front().name, std::string("small"));
        QCOMPARE(session.evaluations().front().records.size(), records.size());
        QVERIFY(test::waitIdle(session));
    }

    void unreadableProjectLeavesTheOpenOneAsItWas() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("broken.reach");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an SQLite database, it is text that only looks like a project");
        f.close();
        Session session;
        QVERIFY(session.openDefault());
        const size_t sets = session.evaluations().size();
        QString error;
        QVERIFY(!session.openProject(bad, &error));
        QVERIFY2(error.contains("broken.reach"), qPrintable(error));
        QCOMPARE(session.evaluations().size(), sets);
        QVERIFY(test::waitIdle(session));
    }

    // Issue 40, defect 3: KernelBench's own eval_results.json could not be imported in the GUI
    // (it asked for a CLI flag), and its baseline timing file selected beside it was read as a
    // trace. Selected together they are one evaluation set with speedups; alone, each says what
    // it needs in one line.
    void kernelBenchRunResultsImportWithTheirBaseline() {
        Session session;
        QVERIFY(session.openDefault());
        QVERIFY(test::waitIdle(session));
        const size_t before = session.evaluations().size();
        const QString run = QStringLiteral(REACH_TEST_DATA "/kernelbench/eval_results.json");
        const QString baseline =
            QStringLiteral(REACH_DATASETS "/kernelbench/H100_Modal_baseline_time_torch.json");
        QSignalSpy errors(&session, &Session::loadError);
        session.importProfiles({baseline});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0][0].toString().startsWith(baseline + QStringLiteral(": a KernelBench "
                                                                              "baseline timing")),
                 qPrintable(errors[0][0].toString()));
        session.importProfiles({run});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(errors.size(), 2);
        QVERIFY2(errors[1][0].toString().contains(QStringLiteral("both files imported together")),
                 qPrintable(errors[1][0].toString()));
        QCOMPARE(session.evaluations().size(), before);
        session.importProfiles({baseline, run});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(errors.size(), 2);
        QCOMPARE(session.evaluations().size(), before + 1);
        const EvaluationSet& set = session.evaluations().back();
        QVERIFY(!set.records.empty());
        int timed = 0;
        for (const EvalRecord& r : set.records)
            timed += r.speedup.has_value();
        QVERIFY(timed > 0);
        QVERIFY(set.winners > 0);
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

    void aProjectKeepsTheRulesItWasLastUsedWith() {
        QTemporaryDir dir;
        const QString path = dir.filePath("rules.reach");
        RuleSet custom = RuleSet::builtinDefault();
        custom.setName("custom");
        custom.insertRule(0, Rule{"my_fused_kernel", Category::Addressable, "fused", {}});
        ProjectStore::open(path.toStdString()).saveRuleSet(custom);

        Session session;  // starts with the built-in default rules
        QVERIFY(session.rules().hash() != custom.hash());
        QVERIFY(session.openProject(path));
        QCOMPARE(session.rules().hash(), custom.hash());
        QVERIFY(test::waitIdle(session));

        // An edit made while the project is open is kept in it...
        RuleSet edited = custom;
        edited.removeRule(0);
        session.setRules(edited);
        QVERIFY(test::waitIdle(session));
        Session reopened;
        QVERIFY(reopened.openProject(path));
        QCOMPARE(reopened.rules().hash(), edited.hash());
        QVERIFY(test::waitIdle(reopened));
        // ... unless the caller says not to (reach-cli figure --rules).
        reopened.setRules(custom, false);
        QVERIFY(test::waitIdle(reopened));
        Session third;
        QVERIFY(third.openProject(path));
        QCOMPARE(third.rules().hash(), edited.hash());
        QVERIFY(test::waitIdle(third));
    }

    void publishedStudyImportsBesideProfiles() {
        // table3.json given to import, as the GUI's File > Import and `reach-cli figure` do:
        // the seven workloads as published and the study's benchmark summaries, at once.
        Session session;
        QSignalSpy errors(&session, &Session::loadError);
        session.importProfiles(
            {QStringLiteral(REACH_DATASETS "/paper/table3.json"),
             QStringLiteral(REACH_DATASETS "/profiles/h200/resnet50_inference.json.gz")});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(errors.count(), 0);
        int published = 0, measured = 0;
        for (const auto& w : session.workloads())
            (w.published ? published : measured) += 1;
        QCOMPARE(published, 7);
        QCOMPARE(measured, 1);
        QVERIFY(!session.evaluations().empty());
        QVERIFY(session.inputFiles().contains(QStringLiteral(REACH_DATASETS "/paper/table3.json")));

        // A broken table: one error naming the file and the key, nothing added.
        QTemporaryDir dir;
        const QString badTable = test::writeBrokenPublishedTable(dir.path());
        QVERIFY(!badTable.isEmpty());
        const size_t before = session.workloads().size(), sets = session.evaluations().size();
        session.importProfiles({badTable});
        QCOMPARE(errors.count(), 1);
        const QString message = errors.front().front().toString();
        QVERIFY2(
            message.contains("table3_bad.json") && message.contains("workloads[0].addressable"),
            qPrintable(message));
        QCOMPARE(session.workloads().size(), before);
        QCOMPARE(session.evaluations().size(), sets);
    }

    // Issue 40 (low): importing a file the project already holds said nothing. Its GPU time
    // would count twice: it is not read again, and a warning says so, naming the file.
    void aFileImportedAgainIsSaidAndNotCountedTwice() {
        Session session;
        QSignalSpy warnings(&session, &Session::loadWarning);
        const QString trace =
            QStringLiteral(REACH_DATASETS "/profiles/h200/resnet50_inference.json.gz");
        session.importProfiles({trace});
        QVERIFY(test::waitIdle(session));
        const size_t before = session.workloads().size();
        QCOMPARE(warnings.count(), 0);
        session.importProfiles({trace});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(session.workloads().size(), before);
        QCOMPARE(warnings.count(), 1);
        const QString message = warnings.front().front().toString();
        QVERIFY2(message.contains(QStringLiteral("resnet50_inference.json.gz")) &&
                     message.contains(QStringLiteral("already")),
                 qPrintable(message));
    }
};

QTEST_MAIN(TestSession)
#include "session_test.moc"
