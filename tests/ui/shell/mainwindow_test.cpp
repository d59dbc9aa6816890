// Main window: the bundled sample opens with every view, CSV export equals the model, figure
// export writes PDF + CSV + provenance, records import becomes an evaluation set, and the
// layout / recent files persist through QSettings.
#include <qcustomplot.h>

#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "core/records/evaluationset.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/abouttext.h"
#include "ui/mainwindow.h"
#include "ui/recentfolders.h"
#include "ui/session.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectbrowser.h"
#include "ui/views/projectionview.h"
#include "ui/views/speedupview.h"

using namespace reach;

namespace {

// One CSV line into its fields ("..." quoting with "" escapes, as RFC 4180).
QStringList splitCsv(const QString& line) {
    QStringList fields;
    QString field;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields << field;
            field.clear();
        } else {
            field += c;
        }
    }
    fields << field;
    return fields;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        QSettings().clear();
    }

    void opensTheSampleWithEveryView() {
        MainWindow window;
        QVERIFY(window.openDefault());
        // The published study is there at once: the plots are filled before any profile is read.
        QCOMPARE(window.breakdownView()->model()->rowCount(), 7);
        QCOMPARE(window.projectionView()->model()->rowCount(), 7);
        QVERIFY(test::waitIdle(*window.session()));
        QCOMPARE(window.breakdownView()->model()->rowCount(), 13);
        QCOMPARE(window.tabs()->count(), 4);
        QStringList keys;
        for (const auto& v : window.views())
            keys << v.key;
        QCOMPARE(keys, (QStringList{"breakdown", "speedups", "projection", "roofline"}));
        // The GUI asks reach-verify --device-info (built beside it); without a GPU that is
        // "no GPU", an ordinary answer.
        QSignalSpy checked(&window, &MainWindow::gpuChecked);
        QVERIFY(window.isGpuChecked() || checked.wait(30000));
        QVERIFY2(
            window.gpuText() == QLatin1String("no GPU") || window.gpuText().startsWith("GPU: "),
            qPrintable(window.gpuText()));
        // For looking at the whole window by hand: REACH_UI_DUMP=DIR saves it as a PNG.
        if (qEnvironmentVariableIsSet("REACH_UI_DUMP")) {
            window.show();
            QTest::qWait(200);
            window.grab().save(qEnvironmentVariable("REACH_UI_DUMP") + "/mainwindow.png");
        }
        // The study's benchmark summaries are the evaluation sets until records exist.
        bool dlrm = false;
        for (const EvaluationSet& e : window.session()->evaluations())
            dlrm = dlrm || (e.winners == 5 && e.denominator == 12 && e.medianSpeedup == 1.552);
        QVERIFY(dlrm);
    }

    void csvExportEqualsTheModel() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        window.tabs()->setCurrentWidget(window.breakdownView());
        QTemporaryDir dir;
        // Typed without an extension: written as .csv.
        const QString path = dir.filePath("breakdown.csv");
        QString error, written;
        QVERIFY2(window.exportData(dir.filePath("breakdown"), &error, &written), qPrintable(error));
        QCOMPARE(written, path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
        const BreakdownModel& model = *window.breakdownView()->model();
        QCOMPARE(lines.size(), model.rowCount() + 1);
        // Shares are written as fractions of 1 (the view shows percent), and say so.
        QVERIFY2(lines[0].startsWith("Workload,Source,library-optimized (fraction of 1),"
                                     "addressable (fraction of 1)"),
                 qPrintable(lines[0]));
        for (int r = 0; r < model.rowCount(); ++r) {
            const QStringList cells = splitCsv(lines[r + 1]);
            QCOMPARE(cells.size(), int(BreakdownModel::ColumnCount));
            QCOMPARE(cells[1], QString::fromStdString(model.workload(r).origin));
            QCOMPARE(cells[0], QString::fromStdString(model.workload(r).name));
            QCOMPARE(cells[BreakdownModel::Addressable].toDouble(),
                     QString::number(model.share(r, Category::Addressable), 'g', 10).toDouble());
        }
    }

    void figureExportWritesPdfCsvAndProvenance() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        window.tabs()->setCurrentWidget(window.projectionView());
        const QFont screenFont = window.projectionView()->barPlot()->xAxis->tickLabelFont();
        QTemporaryDir dir;
        const QString path = dir.filePath("projection.pdf");
        QString error;
        QVERIFY2(window.exportFigure(path, &error), qPrintable(error));
        QFile pdf(path);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QCOMPARE(pdf.read(4), QByteArray("%PDF"));
        QFile json(dir.filePath("projection.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QByteArray provenance = json.readAll();
        QVERIFY(provenance.contains("win_rate"));
        QVERIFY(provenance.contains(QByteArray::fromStdString(window.session()->rules().hash())));
        QVERIFY(QFile::exists(dir.filePath("projection.csv")));
        // The gain axis of the paper figure has its ticks (once it had only "0"): the line of
        // text above the axis's title holds three numbers or more.
        QProcess text;
        text.start(QStringLiteral("pdftotext"),
                   {QStringLiteral("-layout"), path, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(30000));
        const QStringList lines = QString::fromUtf8(text.readAllStandardOutput()).split('\n');
        int title = -1;
        for (int i = 0; i < lines.size() && title < 0; ++i)
            if (lines[i].contains(QStringLiteral("Projected end-to-end")))
                title = i;
        QVERIFY2(title > 0, qPrintable(lines.join('\n')));
        int above = title - 1;
        while (above > 0 && lines[above].trimmed().isEmpty())
            --above;
        const QStringList ticks =
            lines[above].split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
        QVERIFY2(ticks.size() >= 3, qPrintable(lines.join('\n')));
        // The on-screen plot keeps its own style after a paper-style export.
        QCOMPARE(window.projectionView()->barPlot()->xAxis->tickLabelFont(), screenFont);
    }

    // File > Save Project As: the sample's profiles, record sets and rules in one .reach file
    // that then is the open project's; the study's published rows are named as not stored.
    void saveProjectAsWritesAReachFileThatReopens() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        int measured = 0;
        for (const ProjectWorkload& w : window.session()->workloads())
            measured += w.workload != nullptr;
        QVERIFY(measured > 0);
        QTemporaryDir dir;
        QVERIFY(window.saveProjectAndReport(dir.filePath("saved")));  // ".reach" added
        const QString path = dir.filePath("saved.reach");
        QVERIFY(QFile::exists(path));
        QCOMPARE(window.session()->storePath(), path);
        QVERIFY(!window.session()->hasUnsavedRuleEdits());
        QVERIFY(window.messageLog()->text().contains(QStringLiteral("not stored")));

        MainWindow again;
        QString error;
        QVERIFY2(again.session()->openProject(path, &error), qPrintable(error));
        QVERIFY(test::waitIdle(*again.session()));
        QCOMPARE(int(again.session()->workloads().size()), measured);
        int records = 0, before = 0;
        for (const EvaluationSet& e : again.session()->evaluations())
            records += int(e.records.size());
        for (const EvaluationSet& e : window.session()->evaluations())
            before += int(e.records.size());
        QCOMPARE(records, before);
    }

    // File > Save (Ctrl+S, issue 40): an import into a saved project is written over that project
    // without asking where; the title loses its unsaved mark and the file reopens with it.
    void saveWritesOverTheOpenProject() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        QTemporaryDir dir;
        const QString path = dir.filePath("p.reach");
        QVERIFY(window.saveProjectAndReport(path));
        const size_t sets = window.session()->evaluations().size();
        window.importFiles({QStringLiteral(REACH_TEST_DATA "/records/small.jsonl")});
        QVERIFY(test::waitIdle(*window.session()));
        QVERIFY(window.isWindowModified());
        auto* save = window.findChild<QAction*>(QStringLiteral("saveProject"));
        QVERIFY(save);
        QCOMPARE(save->shortcut(), QKeySequence(QKeySequence::Save));
        save->trigger();  // no dialog: the open project is the place
        QVERIFY(!window.isWindowModified());
        QCOMPARE(window.session()->storePath(), path);
        MainWindow again;
        QString error;
        QVERIFY2(again.session()->openProject(path, &error), qPrintable(error));
        QVERIFY(test::waitIdle(*again.session()));
        int storedSets = 0;
        for (const EvaluationSet& e : again.session()->evaluations())
            storedSets += !e.published;
        int openSets = 0;
        for (size_t i = 0; i < window.session()->evaluations().size(); ++i)
            openSets += !window.session()->evaluations()[i].published;
        QCOMPARE(storedSets, openSets);
        QVERIFY(window.session()->evaluations().size() == sets + 1);
    }

    // Help > About (issue 40): what Reach is, what it was built with and where it keeps what it
    // writes, in words a user reads (no source paths, no issue numbers).
    void aboutSaysWhatWhereAndWithWhat() {
        const QString text = aboutText(QStringLiteral("/tmp/p.reach"), QStringLiteral("no GPU"));
        for (const QString& part :
             {QStringLiteral(REACH_VERSION_FOR_TESTS), QStringLiteral(QT_VERSION_STR),
              QStringLiteral(QCUSTOMPLOT_VERSION_STR), QStringLiteral("/tmp/p.reach"),
              QStringLiteral("no GPU"), QStringLiteral("SQLite 3."), QStringLiteral("Evidence key"),
              QStringLiteral("Compile cache"), QStringLiteral("addressable")})
            QVERIFY2(text.contains(part), qPrintable(part + QStringLiteral(" in ") + text));
        QVERIFY(!text.contains(QStringLiteral("core/")));
        QVERIFY(!text.contains(QStringLiteral("issue"), Qt::CaseInsensitive));
        QVERIFY(aboutText(QString(), QStringLiteral("H100"))
                    .contains(QStringLiteral("bundled sample")));
    }

    // Issue 40 (low): Esc in the kernel filter clears it (the window's Esc took the key and the
    // filter kept hiding rows); Esc with an empty filter reaches the window, which says what it
    // cancelled or that nothing runs.
    void escapeClearsTheFilterThenSaysWhatItCancels() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        window.tabs()->setCurrentWidget(window.breakdownView());
        QLineEdit* filter = window.breakdownView()->kernelFilter();
        filter->setFocus();
        filter->setText(QStringLiteral("gemm"));
        window.statusBar()->clearMessage();
        QTest::keyClick(filter, Qt::Key_Escape);
        QCOMPARE(filter->text(), QString());
        QVERIFY2(window.statusBar()->currentMessage().isEmpty(),
                 qPrintable(window.statusBar()->currentMessage()));
        QTest::keyClick(filter, Qt::Key_Escape);
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("No background job to cancel"));
    }

    // Issue 40 (low): no developer references in what a user reads ("Every number is
    // core/headroom's", "issue 27"): every label, button, action and tooltip of every view.
    void noSourcePathsOrIssueNumbersInTheWindow() {
        MainWindow window;
        window.show();
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        const QRegularExpression developer(
            QStringLiteral("\\b(core|ui|app|gpu)/[a-z]|\\bissue \\d+|\\.(cpp|h)\\b"),
            QRegularExpression::CaseInsensitiveOption);
        QStringList found;
        auto check = [&](const QString& text, const QObject* where) {
            if (developer.match(text).hasMatch())
                found << where->objectName() + QStringLiteral(": ") + text;
        };
        for (int i = 0; i < window.tabs()->count(); ++i) {
            window.tabs()->setCurrentIndex(i);
            QTest::qWait(20);
            for (const QLabel* l : window.findChildren<QLabel*>()) {
                check(l->text(), l);
                check(l->toolTip(), l);
            }
            for (const QAbstractButton* b : window.findChildren<QAbstractButton*>()) {
                check(b->text(), b);
                check(b->toolTip(), b);
            }
            for (const QAction* a : window.findChildren<QAction*>()) {
                check(a->text(), a);
                check(a->toolTip(), a);
            }
        }
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // Issue 40 (low): choosers opened in the working directory every time. Each opens where the
    // last choice for its purpose was made, else where any was, else at home; a folder that is
    // gone is passed over.
    void choosersOpenWhereTheLastChoiceWasMade() {
        QSettings settings;
        for (const QString& key : {QStringLiteral("rules/dir"), QStringLiteral("benchmark/dir"),
                                   QStringLiteral("chooser/lastDir")})
            settings.remove(key);
        QCOMPARE(chooserFolder(QStringLiteral("rules")), QDir::homePath());
        QTemporaryDir a, b;
        rememberChoice(QStringLiteral("rules"), a.filePath(QStringLiteral("r.json")));
        QCOMPARE(chooserFolder(QStringLiteral("rules")), QFileInfo(a.path()).absoluteFilePath());
        QCOMPARE(chooserFolder(QStringLiteral("benchmark")),
                 QFileInfo(a.path()).absoluteFilePath());
        rememberChoice(QStringLiteral("benchmark"), b.path());
        QCOMPARE(chooserFolder(QStringLiteral("benchmark")),
                 QFileInfo(b.path()).absoluteFilePath());
        QCOMPARE(chooserFolder(QStringLiteral("rules")), QFileInfo(a.path()).absoluteFilePath());
        const QString gone = a.path();
        a.remove();
        QVERIFY(!QFileInfo(gone).exists());
        QCOMPARE(chooserFolder(QStringLiteral("rules")), QFileInfo(b.path()).absoluteFilePath());
    }

    void recordsImportBecomesAnEvaluationSet() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        const size_t before = window.session()->evaluations().size();
        // The bundled measured H200 set is already in the speedup view.
        const int rowsBefore = window.speedupView()->model()->rowCount();
        QVERIFY(rowsBefore > 0);
        window.importFiles({QStringLiteral(REACH_TEST_DATA "/records/small.jsonl")});
        QCOMPARE(window.session()->evaluations().size(), before + 1);
        const EvaluationSet& set = window.session()->evaluations().back();
        QVERIFY(!set.records.empty());
        // Six problems, two configurations each: a problem counts once per configuration, as
        // `reach-cli speedups` counts it (one summary, core/records/evaluationset.h).
        QCOMPARE(set.denominator, 10);
        // The speedup view now holds those records too.
        QCOMPARE(window.speedupView()->model()->rowCount(), rowsBefore + int(set.records.size()));
        QVERIFY(QSettings().value("project/recent").toStringList().front().endsWith("small.jsonl"));
    }

    // Issue 40, defect 17: raising "win above" in the Speedups view left the project browser's
    // win rate (and the projection's preset) at the old threshold. One threshold for every
    // summary: each set's winners are summarizeRecords' at the box's threshold.
    void theWinThresholdIsOneAnswerEverywhere() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        window.importFiles({QStringLiteral(REACH_TEST_DATA "/records/small.jsonl")});
        const size_t index = window.session()->evaluations().size() - 1;
        const auto winnersAt = [&](double threshold) {
            const EvaluationSet& set = window.session()->evaluations()[index];
            StatsOptions options;
            options.winThreshold = threshold;
            return summarizeRecords(set.name, set.origin, set.records, set.basis, options).winners;
        };
        const int atOne = window.session()->evaluations()[index].winners;
        QCOMPARE(atOne, winnersAt(1.0));
        double raised = 1.0;
        while (winnersAt(raised) == atOne && raised < 20)
            raised += 0.25;
        QVERIFY2(winnersAt(raised) < atOne, "no threshold changes this set's winners");
        window.speedupView()->winThresholdBox()->setValue(raised);
        const EvaluationSet& now = window.session()->evaluations()[index];
        QCOMPARE(now.winners, winnersAt(raised));
        QCOMPARE(window.session()->winThreshold(), raised);
        // The browser's row says so.
        QTreeWidgetItem* sets = nullptr;
        QTreeWidget* tree = window.browser()->tree();
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
            if (tree->topLevelItem(i)->text(0) == QStringLiteral("Evaluation sets"))
                sets = tree->topLevelItem(i);
        QVERIFY(sets && sets->childCount() == int(index) + 1);
        QVERIFY2(sets->child(int(index))
                     ->text(1)
                     .startsWith(QStringLiteral("%1/%2").arg(now.winners).arg(now.denominator)),
                 qPrintable(sets->child(int(index))->text(1)));
        // A set imported later is summarized at the same threshold.
        window.importFiles({QStringLiteral(REACH_TEST_DATA "/records/small.jsonl")});
        QCOMPARE(window.session()->evaluations().back().winners, winnersAt(raised));
        window.speedupView()->winThresholdBox()->setValue(1.0);
    }

    void layoutPersists() {
        {
            MainWindow window;
            window.tabs()->setCurrentIndex(2);
            window.close();
        }
        MainWindow again;
        QCOMPARE(again.tabs()->currentIndex(), 2);
    }
};

QTEST_MAIN(TestMainWindow)
#include "mainwindow_test.moc"
