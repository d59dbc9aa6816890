// Records in a shape Reach does not know: importing a real leaderboard list opens the mapping
// dialog instead of an error; the user's mapping is previewed with core's statistics (the ones
// `reach-cli speedups --map` prints), an invalid one shows the reader's one-line error and
// disables Import, OK imports the records as one set, and the next file of the same shape starts
// with the same mapping.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "core/records/recordmapping.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/dialogs/mappingdialog.h"
#include "ui/mainwindow.h"
#include "ui/session.h"

using namespace reach;

namespace {

const QString kLeaderboard = QStringLiteral(REACH_TEST_DATA "/bad-cli/leaderboard_list.json");

QPushButton* okButton(MappingDialog* dialog) {
    return dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

QString statsText(MappingDialog* dialog) {
    return dialog->findChild<QLabel*>(QStringLiteral("stats"))->text();
}

QString errorText(MappingDialog* dialog) {
    return dialog->findChild<QLabel*>(QStringLiteral("error"))->text();
}

// The mapping the CLI test reads this file with (tests/app/clispeedups_test.cpp).
void chooseTimes(MappingDialog* dialog) {
    dialog->setField(QStringLiteral("candidate_time"), QStringLiteral("eager_ms_min"));
    dialog->setField(QStringLiteral("baseline_time"), QStringLiteral("eager_ms_median"));
    dialog->setTimeUnit(QStringLiteral("ms"));
}

int setsFrom(const Session& session, const QString& path) {
    int n = 0;
    for (const EvaluationSet& set : session.evaluations())
        n += QString::fromStdString(set.origin) == path;
    return n;
}

}  // namespace

class TestMappingDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        QSettings().clear();
    }

    void leaderboardImportsThroughTheDialog() {
        MainWindow window;
        QStringList errors;
        connect(window.session(), &Session::loadError, this,
                [&errors](const QString& m) { errors << m; });
        window.importFiles({kLeaderboard});
        // Not an error, and not read as a profile: the dialog asks, without blocking.
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        QVERIFY(!window.session()->isBusy());
        auto* dialog = window.findChild<MappingDialog*>();
        QVERIFY2(dialog, "no mapping dialog");
        QVERIFY(dialog->isVisible());
        QVERIFY(!dialog->remembered());
        QVERIFY(dialog->width() <= 1280 && dialog->height() <= 720);

        // Guessed from the names: only "problem"; no speedup or times yet, so OK is disabled and
        // the reader's line says what is missing.
        QCOMPARE(dialog->mapping().fields,
                 (std::map<std::string, std::string>{{"problem", "problem"}}));
        QVERIFY(!okButton(dialog)->isEnabled());
        QVERIFY2(errorText(dialog).contains(QStringLiteral("speedup=COLUMN")),
                 qPrintable(errorText(dialog)));

        chooseTimes(dialog);
        QVERIFY2(errorText(dialog).isEmpty(), qPrintable(errorText(dialog)));
        QVERIFY(okButton(dialog)->isEnabled());
        auto* preview = dialog->findChild<QTableWidget*>(QStringLiteral("preview"));
        QCOMPARE(preview->rowCount(), 3);
        QCOMPARE(preview->item(0, 0)->text(), QStringLiteral("1_Square_matrix_multiplication_"));
        QCOMPARE(preview->item(0, 4)->text(), QStringLiteral("167.87"));  // 0.1679 ms in us
        // The statistics are core's (computeGroupedStats, as reach-cli speedups prints them).
        ColumnMapping m = dialog->mapping();
        const MappingPreview expected = previewMapping(kLeaderboard.toStdString(), m);
        QCOMPARE(expected.stats.winners, 3);
        const QString stats = statsText(dialog);
        QVERIFY2(stats.startsWith(QStringLiteral("3 record(s): 3 problem(s) attempted, 3 correct, "
                                                 "3 winner(s)")),
                 qPrintable(stats));
        QVERIFY2(stats.contains(QString::number(*expected.stats.medianSpeedup, 'f', 3) + "x"),
                 qPrintable(stats));
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP"))
            dialog->grab().save(qEnvironmentVariable("REACH_UI_DUMP") +
                                QStringLiteral("/mapping.png"));

        const size_t before = window.session()->evaluations().size();
        QTest::mouseClick(okButton(dialog), Qt::LeftButton);
        QTRY_VERIFY(!window.findChild<MappingDialog*>());  // closed and deleted
        QCOMPARE(window.session()->evaluations().size(), before + 1);
        const EvaluationSet& set = window.session()->evaluations().back();
        QCOMPARE(set.records.size(), size_t(3));
        QCOMPARE(set.winners, 3);
        QCOMPARE(set.records.front().problemId, std::string("1_Square_matrix_multiplication_"));
        QCOMPARE(setsFrom(*window.session(), kLeaderboard), 1);
        QVERIFY(errors.isEmpty());
    }

    // The next file with the same columns (another order) starts with the accepted mapping.
    void sameShapeIsPrefilled() {
        QTemporaryDir dir;
        QFile in(kLeaderboard);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        // Another leaderboard of the same tool: the first record's keys in another order.
        text.replace(
            "\"problem\": \"1_Square_matrix_multiplication_\",\n  \"max_abs_ref\": 1104.0,",
            "\"max_abs_ref\": 1104.0,\n  \"problem\": \"1_Square_matrix_multiplication_\",");
        const QString copy = dir.filePath(QStringLiteral("board2.json"));
        QFile out(copy);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(text) == text.size());
        out.close();
        QCOMPARE(shapeKey(mappableColumns(copy.toStdString())),
                 shapeKey(mappableColumns(kLeaderboard.toStdString())));

        MainWindow window;
        window.importFiles({copy});
        auto* dialog = window.findChild<MappingDialog*>();
        QVERIFY(dialog);
        QVERIFY(dialog->remembered());
        QCOMPARE(dialog->mapping().fields,
                 (std::map<std::string, std::string>{{"problem", "problem"},
                                                     {"candidate_time", "eager_ms_min"},
                                                     {"baseline_time", "eager_ms_median"}}));
        QCOMPARE(dialog->mapping().timeUnit, std::string("ms"));
        // The unit is in sight, not at the end of the scrolled list of fields (issue 40).
        auto* unit = dialog->findChild<QComboBox*>(QStringLiteral("timeUnit"));
        QVERIFY(unit);
        for (const QScrollArea* scroll : dialog->findChildren<QScrollArea*>())
            QVERIFY(!scroll->isAncestorOf(unit));
        QVERIFY(okButton(dialog)->isEnabled());
        // Cancel imports nothing.
        const size_t before = window.session()->evaluations().size();
        dialog->reject();
        QCOMPARE(window.session()->evaluations().size(), before);
    }

    void invalidMappingShowsTheErrorAndDisablesOk() {
        MappingDialog dialog(kLeaderboard);
        dialog.show();
        chooseTimes(&dialog);
        QVERIFY(okButton(&dialog)->isEnabled());
        // Text where a number belongs: the reader's line names the file, the record and column.
        dialog.setField(QStringLiteral("speedup"), QStringLiteral("problem"));
        const QString error = errorText(&dialog);
        QVERIFY2(error.startsWith(kLeaderboard + QStringLiteral(": record 1, column \"problem\"")),
                 qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("expected a number for speedup")));
        QVERIFY(!error.contains('\n'));
        QVERIFY(!okButton(&dialog)->isEnabled());
        QCOMPARE(dialog.findChild<QTableWidget*>(QStringLiteral("preview"))->rowCount(), 0);
        // OK while invalid does not close the dialog.
        dialog.accept();
        QVERIFY(dialog.isVisible());
        // No problem column at all: the mapping's own check.
        dialog.setField(QStringLiteral("speedup"), QString());
        dialog.setField(QStringLiteral("problem"), QString());
        QVERIFY2(errorText(&dialog).contains(QStringLiteral("expected problem=COLUMN")),
                 qPrintable(errorText(&dialog)));
        QVERIFY(!okButton(&dialog)->isEnabled());
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP"))
            dialog.grab().save(qEnvironmentVariable("REACH_UI_DUMP") +
                               QStringLiteral("/mapping-error.png"));
    }
};

QTEST_MAIN(TestMappingDialog)
#include "mappingdialog_test.moc"
