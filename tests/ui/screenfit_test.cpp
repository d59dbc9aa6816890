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

namespace {

// Twelve real traces (public ones of A100, H100, B200 and MI300X, and H200 profiles), with the
// names they were published under: long, and the same prefixes several times.
QStringList twelveTraces(const QString& into) {
    const QStringList files = {
        "public/hta_dlrm_sampled_rank0_a100.json.gz",
        "public/hta_simple_add_a100.json.gz",
        "public/hta_triton_example_a100.json.gz",
        "public/pipit_saxpy_nsys_a100.sqlite",
        "public/tracelens_bert_small_h100.json.gz",
        "public/tracelens_sglang_qwen3_8b_decode_mi300x.json.gz",
        "public/tracelens_vllm_decode_graph_mi300x.json.gz",
        "public/tracelens_vllm_moe_b200.json.gz",
        "public/tracelens_vllm_prefilldecode_graph_mi300x.json.gz",
        "h200-current/sdpa_backends_flash.json.gz",
        "h200-current/moe_grouped_gemm_fwdbwd.json.gz",
        "h200-current/fp8_scaled_mm_rowwise.json.gz",
    };
    QStringList out;
    for (const QString& f : files) {
        const QString to = into + QLatin1Char('/') + f.section(QLatin1Char('/'), -1);
        if (QFile::copy(QStringLiteral(REACH_DATASETS "/profiles/") + f, to))
            out << to;
    }
    return out;
}

}  // namespace

class ScreenFitTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void theWorkbenchFitsA1280x720Screen() {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        QCOMPARE(screen.size(), QSize(1280, 720));  // the test's screen, not the default 800x800

        QTemporaryDir dir;
        const QStringList traces = twelveTraces(dir.path());
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
