// File > Open a Distributed Run... (ui/dialogs/rankrundialog.h): the run of
// tests/data/distributed/skewed4 (4 ranks, known clock offsets and late arrivals) in the dialog:
// what `reach-cli breakdown --ranks` prints, the critical rank marked, a collective's per-rank
// times; a run that cannot be read says why; the File menu opens it.
#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/rankrundialog.h"
#include "ui/mainwindow.h"
#include "ui/views/projectionview.h"

using namespace reach;

namespace {

const QString kRun = QStringLiteral(REACH_TEST_DATA "/distributed/skewed4");

QString cell(QTableWidget* t, int row, int column) {
    return t->item(row, column) ? t->item(row, column)->text() : QString();
}

}  // namespace

class RankRunDialogTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { reach::test::setUpDeterministicGui(); }
    void theRunsRanksCollectivesAndStragglers();
    void aRunThatCannotBeReadSaysWhy();
    void theFileMenuOpensIt();
    void theRanksAreClassifiedByTheProjectsRules();
};

void RankRunDialogTest::theRunsRanksCollectivesAndStragglers() {
    RankRunDialog dialog;
    dialog.resize(1280, 720);
    dialog.show();
    QSignalSpy loaded(&dialog, &RankRunDialog::loaded);
    dialog.open({kRun});
    QVERIFY(loaded.wait(30000));
    QVERIFY2(dialog.summary().contains(QStringLiteral("4 ranks, 10 collectives matched, 0 listed "
                                                      "unmatched. Critical rank 2")),
             qPrintable(dialog.summary()));
    QTableWidget* ranks = dialog.ranksTable();
    QCOMPARE(ranks->rowCount(), 4);
    QCOMPARE(cell(ranks, 2, 0), QStringLiteral("2 (critical)"));
    QVERIFY(ranks->item(2, 0)->font().bold());
    QCOMPARE(cell(ranks, 0, 10), QStringLiteral("reference"));
    QVERIFY2(cell(ranks, 2, 10).startsWith(QStringLiteral("-700.0 us")),
             qPrintable(cell(ranks, 2, 10)));
    QCOMPARE(cell(ranks, 2, 9), QStringLiteral("1 (400.0 us)"));  // one late arrival, 400 us
    QTableWidget* collectives = dialog.collectivesTable();
    QCOMPARE(collectives->rowCount(), 10);
    QCOMPARE(cell(collectives, 3, 4), QStringLiteral("2"));  // rank 2 was late at collective 3
    QCOMPARE(cell(collectives, 3, 5), QStringLiteral("400.0 us"));
    QCOMPARE(cell(collectives, 0, 4), QStringLiteral("tie"));
    // The drill-down: collective 3's per-rank times, the straggler bold and waiting for nobody.
    collectives->setCurrentCell(3, 0);
    QTableWidget* perRank = dialog.perRankTable();
    QCOMPARE(perRank->rowCount(), 4);
    QCOMPARE(cell(perRank, 2, 3), QStringLiteral("0.0 us"));
    QVERIFY(perRank->item(2, 0)->font().bold());
    QCOMPARE(cell(perRank, 0, 3), QStringLiteral("400.0 us"));
    QCOMPARE(cell(perRank, 2, 1), QStringLiteral("+400.0 us"));  // it arrived 400 us after
    QVERIFY(dialog.unmatchedText().isEmpty());
    // The summary (two lines at 1280 px) is shown whole, not cut at its first line.
    auto* summary = dialog.findChild<QLabel*>(QStringLiteral("summary"));
    QVERIFY(summary);
    QTRY_VERIFY2(summary->height() >= summary->heightForWidth(summary->width()),
                 qPrintable(QStringLiteral("%1 < %2")
                                .arg(summary->height())
                                .arg(summary->heightForWidth(summary->width()))));
    // To look at it as a user would: REACH_UI_SCREENSHOTS=DIR keeps a picture of the dialog.
    if (const QString shots = qEnvironmentVariable("REACH_UI_SCREENSHOTS"); !shots.isEmpty())
        QVERIFY(dialog.grab().save(shots + QStringLiteral("/rank-run-dialog.png")));
}

void RankRunDialogTest::aRunThatCannotBeReadSaysWhy() {
    QTemporaryDir dir;
    QFile bad(dir.filePath(QStringLiteral("rank-1.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"traceEvents\": [1, ");
    bad.close();
    RankRunDialog dialog;
    QSignalSpy failed(&dialog, &RankRunDialog::failed);
    dialog.open({kRun + QStringLiteral("/rank-0.json.gz"), bad.fileName()});
    QVERIFY(failed.wait(30000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("rank-1.json")),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(dialog.ranksTable()->rowCount(), 0);
    QSignalSpy failedAgain(&dialog, &RankRunDialog::failed);
    dialog.open({kRun + QStringLiteral("/rank-0.json.gz")});  // one rank is not a run
    QVERIFY(failedAgain.wait(30000));
    QVERIFY(failedAgain.at(0).at(0).toString().contains(QStringLiteral("two or more")));
}

void RankRunDialogTest::theFileMenuOpensIt() {
    MainWindow window;
    QVERIFY(window.findChild<QAction*>(QStringLiteral("openDistributedRun")));
    window.projectionView()->setParameters(0.5, 2.0);  // the sliders' pair projects the run
    RankRunDialog* dialog = window.openDistributedRun({kRun});
    QSignalSpy loaded(dialog, &RankRunDialog::loaded);
    QVERIFY(loaded.wait(30000));
    QCOMPARE(dialog->ranksTable()->rowCount(), 4);
    QVERIFY(dialog->isVisible());
    // 23.4 % addressable on the critical rank, x 0.5 x (1 - 1/2): 5.9 % saved.
    QVERIFY2(dialog->summary().contains(QStringLiteral(
                 "Projected at win rate 0.500 and median 2.000x: 5.9 % of its working GPU time")),
             qPrintable(dialog->summary()));
}

void RankRunDialogTest::theRanksAreClassifiedByTheProjectsRules() {
    // A project whose rules call every kernel library-optimized: the run's ranks read so, as the
    // project's own breakdowns do (the built-in rules give rank 0 11.2 % there).
    MainWindow window;
    window.session()->setRules(reach::RuleSet::fromJsonText(
                                   R"({"name": "all-library", "version": 1, "rules": [
                                       {"pattern": ".", "category": "library_optimized"}]})",
                                   "test rules"),
                               false);
    RankRunDialog* dialog = window.openDistributedRun({kRun});
    QSignalSpy loaded(dialog, &RankRunDialog::loaded);
    QVERIFY(loaded.wait(30000));
    QCOMPARE(cell(dialog->ranksTable(), 0, 2), QStringLiteral("100.0 %"));
}

QTEST_MAIN(RankRunDialogTest)
#include "rankrundialog_test.moc"
