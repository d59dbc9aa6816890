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
};

QTEST_MAIN(ScreenFitTest)
#include "screenfit_test.moc"
