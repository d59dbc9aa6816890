// The workbench fits a 1280x720 screen (issue 25): the window opens within the screen, and stays
// within it after a folder of a dozen real traces with long names is loaded and every view is
// visited. Run on an offscreen screen of 1280x720 (tests/data/ui/screen_1280x720.json).
// With REACH_SCREENSHOTS=DIR each view is also saved as DIR/<view>.png, to look at.
#include <qcustomplot.h>

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontMetricsF>
#include <QScreen>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/mainwindow.h"
#include "ui/session.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectionview.h"
#include "uitestsupport.h"

using namespace reach;

class ScreenFitTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void theWorkbenchFitsA1280x720Screen() {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        QCOMPARE(screen.size(), QSize(1280, 720));  // the test's screen, not the default 800x800

        QTemporaryDir dir;
        const QStringList traces = test::copyTwelveTraces(dir.path());
        QCOMPARE(traces.size(), 12);

        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(test::waitIdle(*window.session()));
        // First start: the window opens within the screen.
        QVERIFY2(window.frameGeometry().width() <= screen.width() &&
                     window.frameGeometry().height() <= screen.height(),
                 qPrintable(QStringLiteral("opened at %1x%2")
                                .arg(window.frameGeometry().width())
                                .arg(window.frameGeometry().height())));

        QVERIFY(window.openPath(dir.path()));
        QVERIFY(test::waitIdle(*window.session()));
        QCOMPARE(int(window.session()->workloads().size()), 12);

        const QString shots = qEnvironmentVariable("REACH_SCREENSHOTS");
        for (int i = 0; i < window.tabs()->count(); ++i) {
            window.tabs()->setCurrentIndex(i);
            QTest::qWait(50);
            const QString name = window.views()[size_t(i)].key;
            // Nothing in the view asks for more than the screen: the window can be made to fit.
            const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
            if (minimum.width() > screen.width())  // say what asks for it
                for (const QWidget* w : window.findChildren<QWidget*>())
                    if (w->isVisible() && w->minimumSizeHint().width() > screen.width() / 2)
                        qWarning("%s %s: minimum width %d", w->metaObject()->className(),
                                 qPrintable(w->objectName()), w->minimumSizeHint().width());
            QVERIFY2(minimum.width() <= screen.width() && minimum.height() <= screen.height(),
                     qPrintable(QStringLiteral("%1 needs at least %2x%3")
                                    .arg(name)
                                    .arg(minimum.width())
                                    .arg(minimum.height())));
            QVERIFY2(window.width() <= screen.width() && window.height() <= screen.height(),
                     qPrintable(QStringLiteral("%1 widened the window to %2x%3")
                                    .arg(name)
                                    .arg(window.width())
                                    .arg(window.height())));
            if (!shots.isEmpty()) {
                QDir().mkpath(shots);
                window.grab().save(shots + QLatin1Char('/') + name + QStringLiteral(".png"));
            }
        }

        // With the Messages dock open in a 720 px high window the breakdown's twelve row labels
        // still do not overlap: rows are at least a line of their font apart.
        for (QDockWidget* dock : window.findChildren<QDockWidget*>())
            dock->show();
        window.resize(screen.width(), screen.height());
        window.tabs()->setCurrentWidget(window.breakdownView());
        QTest::qWait(100);
        QCustomPlot* plot = window.breakdownView()->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const double rowPx = std::abs(plot->yAxis->coordToPixel(1) - plot->yAxis->coordToPixel(0));
        const double linePx = QFontMetricsF(plot->yAxis->tickLabelFont()).height();
        if (!shots.isEmpty())
            window.grab().save(shots + QStringLiteral("/breakdown_messages.png"));
        QVERIFY2(
            window.height() <= screen.height(),
            qPrintable(QStringLiteral("the dock made the window %1 px high").arg(window.height())));
        QVERIFY2(rowPx >= linePx,
                 qPrintable(
                     QStringLiteral("rows %1 px apart, labels %2 px high").arg(rowPx).arg(linePx)));
    }

    // A hundred workloads (the sample's rows repeated under numbered names): the window still
    // fits the screen, the breakdown's rows keep a line each (its bars scroll), and the
    // projection's axis prints no two names closer than a line (every k-th name; the hover
    // names every bar).
    void aHundredWorkloadsFitAndNoNamesOverprint() {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        Project p = window.session()->project();
        const std::vector<ProjectWorkload> sample = p.workloads;
        QVERIFY(!sample.empty());
        for (size_t i = 0; p.workloads.size() < 100; ++i) {
            ProjectWorkload w = sample[i % sample.size()];
            w.name += " copy " + std::to_string(i / sample.size() + 1);
            p.workloads.push_back(std::move(w));
        }
        window.session()->adoptLoaded(std::move(p));
        window.resize(screen.size());
        for (int i = 0; i < window.tabs()->count(); ++i) {
            window.tabs()->setCurrentIndex(i);
            QTest::qWait(50);
            const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
            QVERIFY2(minimum.width() <= screen.width() && minimum.height() <= screen.height(),
                     qPrintable(QStringLiteral("%1 needs at least %2x%3 with 100 workloads")
                                    .arg(window.views()[size_t(i)].key)
                                    .arg(minimum.width())
                                    .arg(minimum.height())));
        }
        window.tabs()->setCurrentWidget(window.breakdownView());
        QTest::qWait(100);
        QCustomPlot* bars = window.breakdownView()->plot();
        bars->replot(QCustomPlot::rpImmediateRefresh);
        const double line = QFontMetricsF(bars->yAxis->tickLabelFont()).height();
        const double rowPx = std::abs(bars->yAxis->coordToPixel(1) - bars->yAxis->coordToPixel(0));
        QVERIFY2(rowPx >= line,
                 qPrintable(QStringLiteral("breakdown rows %1 px apart").arg(rowPx)));
        QVERIFY(window.height() <= screen.height());

        window.tabs()->setCurrentWidget(window.projectionView());
        QTest::qWait(100);
        QCustomPlot* gain = window.projectionView()->barPlot();
        gain->replot(QCustomPlot::rpImmediateRefresh);
        gain->replot(QCustomPlot::rpImmediateRefresh);  // the thinned axis, laid out
        auto ticker = gain->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        if (const QString shots = qEnvironmentVariable("REACH_SCREENSHOTS"); !shots.isEmpty()) {
            QDir().mkpath(shots);
            window.grab().save(shots + QStringLiteral("/projection_100.png"));
            window.tabs()->setCurrentWidget(window.breakdownView());
            QTest::qWait(50);
            window.grab().save(shots + QStringLiteral("/breakdown_100.png"));
            window.tabs()->setCurrentWidget(window.projectionView());
            QTest::qWait(50);
        }
        const QList<double> keys = ticker->ticks().keys();
        QVERIFY2(keys.size() >= 5 && keys.size() < 100, qPrintable(QString::number(keys.size())));
        const double gainLine = QFontMetricsF(gain->yAxis->tickLabelFont()).height();
        for (int i = 1; i < keys.size(); ++i) {
            const double apart = std::abs(gain->yAxis->coordToPixel(keys[i]) -
                                          gain->yAxis->coordToPixel(keys[i - 1]));
            QVERIFY2(apart >= gainLine - 0.5,
                     qPrintable(
                         QStringLiteral("names %1 px apart, %2 px high").arg(apart).arg(gainLine)));
        }
    }
};

QTEST_MAIN(ScreenFitTest)
#include "screenfit_test.moc"
