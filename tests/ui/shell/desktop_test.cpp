// Everyday habits of a desktop program (issue 16, items 3 and 4): several files dropped at once
// are all imported; a single click in the project browser selects the workload in every view;
// its context menu renames and removes; a published summary set shows its summary in the
// speedup view; splitters come back where they were left; the plots follow the dark palette.
#include <qcustomplot.h>

#include <QApplication>
#include <QDropEvent>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QUrl>

#include "tests/ui/support/uitestsupport.h"
#include "ui/mainwindow.h"
#include "ui/session.h"
#include "ui/theme.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectbrowser.h"
#include "ui/views/projectionview.h"
#include "ui/views/speedupview.h"

using namespace reach;

class TestDesktop : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        QSettings().clear();
    }

    void droppingSeveralFilesImportsThemAll() {
        // The window's drop handler itself (offscreen Qt delivers no drop without a drag).
        struct DropTarget : MainWindow {
            using MainWindow::dropEvent;
        } window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        const size_t workloads = window.session()->workloads().size();
        const size_t sets = window.session()->evaluations().size();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(REACH_TEST_DATA "/kineto/reordered_triton.json"),
                      QUrl::fromLocalFile(REACH_TEST_DATA "/records/small.jsonl")});
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        window.dropEvent(&drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(test::waitIdle(*window.session()));
        QCOMPARE(window.session()->workloads().size(), workloads + 1);
        QCOMPARE(window.session()->evaluations().size(), sets + 1);
    }

    void singleClickSelectsTheWorkloadEverywhere() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        // A measured row (it has kernels to drill into), not the one the views start on.
        int row = -1;
        const auto& workloads = window.session()->workloads();
        for (int i = int(workloads.size()) - 1; i >= 0 && row < 0; --i) {
            if (workloads[size_t(i)].breakdown && i != window.projectionView()->heatRow())
                row = i;
        }
        QVERIFY(row >= 0);
        QTreeWidgetItem* item = window.browser()->workloadItem(row);
        QVERIFY(item);
        window.browser()->tree()->setCurrentItem(item);
        QCOMPARE(window.breakdownView()->selectedRow(), row);
        QCOMPARE(window.projectionView()->heatRow(), row);
        // The full name is in the tooltip, whatever the column's width.
        QVERIFY(item->toolTip(0).startsWith(QString::fromStdString(workloads[size_t(row)].name)));
    }

    void contextMenuRenamesAndRemoves() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        ProjectBrowser* browser = window.browser();
        QTreeWidgetItem* first = browser->workloadItem(0);
        std::unique_ptr<QMenu> menu(browser->contextMenuFor(first));
        QVERIFY(menu);
        QStringList actions;
        for (QAction* a : menu->actions())
            actions << a->text();
        QCOMPARE(actions, (QStringList{"Rename workload...", "Remove workload"}));
        QVERIFY(!browser->contextMenuFor(browser->tree()->topLevelItem(0)));  // a heading

        QVERIFY(browser->renameItem(browser->workloadItem(0), QStringLiteral("Renamed row")));
        QCOMPARE(window.session()->workloads().front().name, std::string("Renamed row"));
        QCOMPARE(browser->workloadItem(0)->text(0), QStringLiteral("Renamed row"));
        QCOMPARE(QString::fromStdString(window.breakdownView()->model()->workload(0).name),
                 QStringLiteral("Renamed row"));
        const size_t n = window.session()->workloads().size();
        menu.reset(browser->contextMenuFor(browser->workloadItem(0)));
        menu->actions().at(1)->trigger();  // Remove
        QCOMPARE(window.session()->workloads().size(), n - 1);
        QCOMPARE(window.breakdownView()->model()->rowCount(), int(n - 1));

        const size_t sets = window.session()->evaluations().size();
        QVERIFY(sets > 0);
        QVERIFY(browser->renameItem(browser->evaluationItem(0), QStringLiteral("Set A")));
        QCOMPARE(window.session()->evaluations().front().name, std::string("Set A"));
        QVERIFY(browser->removeItem(browser->evaluationItem(0)));
        QCOMPARE(window.session()->evaluations().size(), sets - 1);
    }

    void publishedSummarySetShowsItsSummary() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        const auto& sets = window.session()->evaluations();
        int published = -1;
        for (size_t i = 0; i < sets.size() && published < 0; ++i) {
            if (sets[i].records.empty())
                published = int(i);
        }
        QVERIFY(published >= 0);
        window.browser()->tree()->setCurrentItem(window.browser()->evaluationItem(published));
        const EvaluationSet& set = sets[size_t(published)];
        const QString summary = window.speedupView()->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("%1 of %2").arg(set.winners).arg(set.denominator)),
                 qPrintable(summary));
        QVERIFY(summary.contains(QString::fromStdString(set.name)));
        // A set with records clears it (its records are in the plot).
        for (size_t i = 0; i < sets.size(); ++i) {
            if (!sets[i].records.empty()) {
                window.browser()->tree()->setCurrentItem(window.browser()->evaluationItem(int(i)));
                QVERIFY(window.speedupView()->summaryText().isEmpty());
                break;
            }
        }
    }

    void splittersComeBackWhereTheyWereLeft() {
        QList<int> sizes;
        {
            MainWindow window;
            window.resize(1400, 900);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            auto* drill = window.findChild<QSplitter*>(QStringLiteral("drillSplitter"));
            QVERIFY(drill);
            // The drill-down chart starts at a usable size.
            QVERIFY(window.breakdownView()->drillPlot()->minimumWidth() >= 280);
            const int total = drill->sizes().value(0) + drill->sizes().value(1);
            drill->setSizes({total / 4, total - total / 4});
            sizes = drill->sizes();
            window.close();
        }
        MainWindow again;
        again.resize(1400, 900);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.findChild<QSplitter*>(QStringLiteral("drillSplitter"))->sizes(), sizes);
    }

    // The window comes back at the size it was closed at.
    void windowGeometryComesBack() {
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(1111, 733);
            QTRY_COMPARE(window.size(), QSize(1111, 733));
            window.close();
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.size(), QSize(1111, 733));
    }

    // The keyboard alone walks the views (Ctrl+PgDown/PgUp, Ctrl+1..3), the project browser
    // (arrows select a workload in every view) and the records table (arrows move the selection,
    // which the plot rings).
    void keyboardWalksTheTabsAndTables() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.tabs()->setCurrentIndex(0);
        QTest::keyClick(&window, Qt::Key_PageDown, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentIndex(), 1);
        QTest::keyClick(&window, Qt::Key_PageUp, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentIndex(), 0);
        QTest::keyClick(&window, Qt::Key_PageUp, Qt::ControlModifier);  // wraps around
        QCOMPARE(window.tabs()->currentIndex(), window.tabs()->count() - 1);
        QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window.tabs()->currentWidget(), window.views().at(1).widget);

        // The browser: Down from one workload selects the next in every view.
        QTreeWidget* tree = window.browser()->tree();
        tree->setFocus();
        tree->setCurrentItem(window.browser()->workloadItem(0));
        QTest::keyClick(tree, Qt::Key_Down);
        QCOMPARE(tree->currentItem(), window.browser()->workloadItem(1));
        QCOMPARE(window.breakdownView()->selectedRow(), 1);
        QCOMPARE(window.projectionView()->heatRow(), 1);

        // The records table: Home selects the first row, Down the next; the plot rings it.
        window.tabs()->setCurrentWidget(window.speedupView());
        QTableView* table = window.speedupView()->table();
        QVERIFY(table->model()->rowCount() > 2);
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Home, Qt::ControlModifier);
        QTest::keyClick(table, Qt::Key_Down);
        QCOMPARE(table->currentIndex().row(), 1);
        const std::vector<RecordRef> selected = window.speedupView()->selectedRecords();
        QCOMPARE(selected.size(), size_t(1));
        const bool drawn =
            window.speedupView()->plotBuilder().pointOf(selected.front()).has_value();
        QCOMPARE(window.speedupView()->selectionMarker()->dataCount(), drawn ? 1 : 0);
    }

    void plotsFollowTheDarkPalette() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        auto background = [](QCustomPlot* plot) {
            return plot->toPixmap(200, 150).toImage().pixelColor(2, 2).lightness();
        };
        QVERIFY(background(window.speedupView()->plot()) > 200);
        for (QAction* a : window.findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("&Dark Palette"))
                a->setChecked(true);
        }
        QCOMPARE(Theme::mode(), Theme::Mode::Dark);
        for (QCustomPlot* plot : std::initializer_list<QCustomPlot*>{
                 window.speedupView()->plot(), window.breakdownView()->plot(),
                 window.projectionView()->barPlot()})
            QVERIFY2(background(plot) < 60, qPrintable(plot->objectName()));
        for (QAction* a : window.findChildren<QAction*>()) {
            if (a->text() == QStringLiteral("&Dark Palette"))
                a->setChecked(false);
        }
        QVERIFY(background(window.speedupView()->plot()) > 200);
    }
};

QTEST_MAIN(TestDesktop)
#include "desktop_test.moc"
