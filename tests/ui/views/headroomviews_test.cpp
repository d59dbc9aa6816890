// The headroom views (issue 17, item 4) paint core/headroom's numbers and nothing else: on the
// bundled sample's shaped H200 traces (datasets/profiles/h200-shapes) the roofline scatter's
// points are core's kernel rows, the headroom bars are core's headroom shares, the projection's
// speed-of-light lines are core's bounds; a click on a point selects the kernel in the
// breakdown's drill-down; `reach-cli figure roofline|headroom` writes what the GUI draws.
#include <qcustomplot.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "core/analysis/kernelname.h"
#include "core/headroom/headroom.h"
#include "core/project/workloadheadroom.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/mainwindow.h"
#include "ui/models/kernelmodel.h"
#include "ui/plots/headroomplot.h"
#include "ui/session.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectionview.h"
#include "ui/views/rooflineview.h"

using namespace reach;

namespace {

// Core's answer, computed here from the row's breakdown as `reach-cli headroom` does.
std::optional<Headroom> coreHeadroom(const ProjectWorkload& w) {
    if (!w.breakdown)
        return std::nullopt;
    const GpuSpec* gpu = gpuForDevice(w.breakdown->device);
    if (!gpu)
        return std::nullopt;
    return computeHeadroom(*w.breakdown, *gpu);
}

double barValueAt(QCPBars* bars, double key) {
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
        if (std::abs(it->key - key) < 1e-9)
            return it->value;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

QString run(const QStringList& args, int* status) {
    QProcess p;
    p.start(QStringLiteral(REACH_CLI_BINARY), args);
    if (!p.waitForFinished(240000))
        return QStringLiteral("timed out");
    *status = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

}  // namespace

class TestHeadroomViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::setUpDeterministicGui();
        QString error;
        QVERIFY2(
            m_session.openProject(QStringLiteral(REACH_DATASETS "/profiles/h200-shapes"), &error),
            qPrintable(error));
        QVERIFY(test::waitIdle(m_session));
        QCOMPARE(m_session.workloads().size(), size_t(6));  // the six H200 workloads
    }

    void scatterPointsAreCoreRows() {
        RooflineView view(&m_session);
        int checkedRows = 0, unplottedSeen = 0;
        for (int row = 0; row < int(m_session.workloads().size()); ++row) {
            view.setWorkloadRow(row);
            const auto core = coreHeadroom(m_session.workloads()[size_t(row)]);
            QVERIFY(core);
            if (core->total.estimatedUs <= 0) {
                // Nothing to place: nothing plotted, and the view says why.
                QVERIFY(view.points().empty());
                QVERIFY2(view.noteText().startsWith("nothing plotted: "),
                         qPrintable(view.noteText()));
                continue;
            }
            // Every kernel with an estimate, FLOPs and bytes is a point, with core's numbers; a
            // memset or memcpy is not (issue 40: a memset got a share of its call's GEMM FLOPs
            // and was drawn at 648 TFLOP/s).
            std::map<std::string, const KernelRoofline*> expected;
            int noEstimate = 0;
            for (const KernelRoofline& k : core->kernels) {
                if (k.kind == ActivityKind::Kernel && k.estimatedUs > 0 && k.flops > 0 &&
                    k.bytes > 0)
                    expected[k.name] = &k;
                else if (k.estimatedUs <= 0)
                    ++noEstimate;
            }
            QVERIFY(!expected.empty());
            QCOMPARE(view.points().size(), expected.size());
            for (const RooflineView::Point& p : view.points()) {
                const auto it = expected.find(p.name);
                QVERIFY2(it != expected.end(), p.name.c_str());
                const KernelRoofline& k = *it->second;
                QCOMPARE(p.intensity, k.intensity());
                QCOMPARE(p.flopsPerSecond, k.achievedFlopsPerSecond());
                QCOMPARE(p.us, k.us);
                QCOMPARE(p.fractionOfSol, k.fractionOfSol());
                QCOMPARE(p.category, k.category);
                // ... and that is where it is drawn.
                QCOMPARE(p.graph->dataCount(), 1);
                QCOMPARE(p.graph->data()->at(0)->key, k.intensity());
                QCOMPARE(p.graph->data()->at(0)->value, k.achievedFlopsPerSecond() / 1e12);
            }
            // Larger time, larger point.
            for (size_t i = 1; i < view.points().size(); ++i)
                QVERIFY(view.points()[i - 1].diameterPx >= view.points()[i].diameterPx);
            // Kernels without an estimate are counted in the view, never plotted.
            if (noEstimate > 0) {
                ++unplottedSeen;
                QVERIFY2(view.noteText().contains(
                             QStringLiteral("not plotted: %1 with no estimate").arg(noEstimate)),
                         qPrintable(view.noteText()));
                QVERIFY(view.footerText().simplified().contains(QStringLiteral("no estimate")));
            }
            // The roofline is the GPU row's: bandwidth slope, then the BF16 peak.
            QCPGraph* roof = view.rooflineGraph();
            QVERIFY(roof->dataCount() >= 2);
            const double bw = core->gpu.bytesPerSecond();
            const auto first = roof->data()->at(0);
            QCOMPARE(first->value,
                     std::min(first->key * bw, core->gpu.flopsPerSecond(Peak::Bf16)) / 1e12);
            double top = 0;
            for (int i = 0; i < roof->dataCount(); ++i)
                top = std::max(top, roof->data()->at(i)->value);
            QCOMPARE(top, core->gpu.bf16Tflops);
            QVERIFY(
                view.footerText().simplified().contains(QString::fromStdString(core->gpu.name)));
            ++checkedRows;
        }
        QVERIFY(checkedRows >= 2);   // at least ResNet-50 and DLRM
        QVERIFY(unplottedSeen > 0);  // DLRM's aten::index has no formula
    }

    void tooltipTellsCoreNumbers() {
        RooflineView view(&m_session);
        QVERIFY(!view.points().empty());
        const RooflineView::Point& p = view.points().front();
        const QString tip = view.tipText(0);
        QVERIFY2(tip.contains(QString::fromStdString(kernelDisplayName(p.name, 80))),
                 qPrintable(tip));
        QVERIFY(tip.contains(QString::fromStdString(p.op)));
        QVERIFY(tip.contains(QString::number(p.intensity, 'g', 3) + " FLOP/byte"));
        QVERIFY(tip.contains(QString::number(p.flopsPerSecond / 1e12, 'g', 3) + " TFLOP/s"));
        QVERIFY(tip.contains(" of speed of light"));
    }

    // A mouse click on a point selects that kernel in the scatter and in the breakdown's
    // drill-down (the main window's wiring, on the bundled sample).
    void clickSelectsTheKernelEverywhere() {
        MainWindow window;
        QVERIFY(window.openDefault());
        QVERIFY(test::waitIdle(*window.session()));
        RooflineView* view = window.rooflineView();
        QVERIFY(view->workloadRow() >= 0);
        QVERIFY(!view->points().empty());
        window.resize(1200, 800);
        window.tabs()->setCurrentWidget(view);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        view->plot()->replot();
        // The smallest point is drawn last (on top): click it.
        const int index = int(view->points().size()) - 1;
        const RooflineView::Point point = view->points()[size_t(index)];
        const QPoint pos = view->pixelOf(index);
        QCOMPARE(view->pointAt(pos), index);
        QTest::mouseClick(view->plot(), Qt::LeftButton, {}, pos);
        QCOMPARE(view->selectedKernel(), QString::fromStdString(point.name));
        BreakdownView* breakdown = window.breakdownView();
        QCOMPARE(breakdown->selectedRow(), view->workloadRow());
        QCOMPARE(breakdown->kernelModel()->category(), point.category);
        const QModelIndex current = breakdown->kernelTable()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.siblingAtColumn(0).data(KernelModel::FullNameRole).toString(),
                 QString::fromStdString(point.name));
        // Back the other way: a kernel picked in the drill-down is ringed on the roofline.
        QVERIFY(breakdown->kernelView()->rowCount() > 0);
        for (int r = 0; r < breakdown->kernelView()->rowCount(); ++r) {
            const QModelIndex i = breakdown->kernelView()->index(r, 0);
            const QString name = i.data(KernelModel::FullNameRole).toString();
            if (name == QString::fromStdString(point.name))
                continue;
            breakdown->kernelTable()->setCurrentIndex(i);
            const bool plotted = std::any_of(view->points().begin(), view->points().end(),
                                             [&](const RooflineView::Point& p) {
                                                 return QString::fromStdString(p.name) == name;
                                             });
            QCOMPARE(view->selectedKernel(), plotted ? name : QString());
            break;
        }
        // A click beside every point selects nothing.
        QVERIFY(!view->clickAt(QPoint(2, 2)));

        // The headroom bars have no tab: they are exported by key (their context menu).
        QString error;
        const QString pdf = m_dir.filePath("gui_headroom.pdf");
        QVERIFY2(window.exportFigure(pdf, &error, nullptr, nullptr, QStringLiteral("headroom")),
                 qPrintable(error));
        QFile csv(m_dir.filePath("gui_headroom.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(csv.readAll()),
                 QString::fromStdString(figureTableCsv(breakdown->headroomPlot()->figureData())));
        // The roofline tab exports its scatter.
        window.tabs()->setCurrentWidget(view);
        QVERIFY2(window.exportFigure(m_dir.filePath("gui_roofline.pdf"), &error),
                 qPrintable(error));
        QFile rcsv(m_dir.filePath("gui_roofline.csv"));
        QVERIFY(rcsv.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(rcsv.readAll()),
                 QString::fromStdString(figureTableCsv(view->figureData())));
    }

    void headroomBarsAreCoreShares() {
        BreakdownView breakdown(&m_session);
        HeadroomPlot* plot = breakdown.headroomPlot();
        QVERIFY(plot);
        for (int row = 0; row < int(m_session.workloads().size()); ++row) {
            const auto core = coreHeadroom(m_session.workloads()[size_t(row)]);
            QVERIFY(core);
            const double key = plot->keyOfRow(row);
            double total = 0;
            for (Category c : kCategories) {
                const double v = barValueAt(plot->bars(c), key);
                QCOMPARE(v, 100.0 * core->categoryHeadroomShare(c));
                total += v;
            }
            QVERIFY(std::abs(total - 100.0 * core->headroomShare()) < 1e-9);
            QVERIFY2(plot->rowLabel(row).startsWith(
                         QString::number(100.0 * core->headroomShare(), 'f', 1) + "% (addr. " +
                         QString::number(100.0 * core->categoryHeadroomShare(Category::Addressable),
                                         'f', 1) +
                         "%)"),
                     qPrintable(plot->rowLabel(row)));
        }
        // The figure's CSV holds the same numbers.
        const FigureTable t = plot->figureData();
        QCOMPARE(t.rows.size(), m_session.workloads().size());
    }

    // Rows of the sample without shapes (or published) say so instead of drawing a bar.
    void sampleRowsWithoutEstimateSaySo() {
        Session session;
        QString error;
        QVERIFY2(session.openDefault(&error), qPrintable(error));
        QVERIFY(test::waitIdle(session));
        HeadroomPlot plot;
        plot.setWorkloads(session.workloads());
        ProjectionView projection(&session);
        int none = 0, some = 0;
        for (int row = 0; row < int(session.workloads().size()); ++row) {
            const ProjectWorkload& w = session.workloads()[size_t(row)];
            const auto core = coreHeadroom(w);
            const bool estimated = core && core->total.estimatedUs > 0;
            if (estimated) {
                ++some;
                QCOMPARE(*projection.boundPercent(row, true),
                         100.0 * core->categoryHeadroomShare(Category::Addressable));
                continue;
            }
            ++none;
            QVERIFY2(plot.rowLabel(row).startsWith("no estimate: "),
                     qPrintable(plot.rowLabel(row)));
            if (!w.breakdown)
                QVERIFY(plot.rowLabel(row).contains("published"));
            else
                QVERIFY(plot.rowLabel(row).contains("record_shapes=False"));
            QVERIFY(std::isnan(plot.keyOfRow(row)));  // no bar
            QVERIFY(!projection.boundPercent(row, true));
            QVERIFY(!projection.boundPercent(row, false));
        }
        QVERIFY(some >= 2);  // at least ResNet-50 and DLRM, re-profiled with shapes
        QVERIFY(none >= 7);  // the study's published rows
        // Only they are drawn; the caption counts the others by why.
        for (Category c : kCategories)
            QCOMPARE(plot.bars(c)->dataCount(), some);
        QVERIFY2(plot.footerText().simplified().contains("No estimate, not drawn: 7 published"),
                 qPrintable(plot.footerText()));
    }

    void projectionBoundIsCoreBound() {
        ProjectionView view(&m_session);
        view.setParameters(0.417, 1.552);
        for (int row = 0; row < view.model()->rowCount(); ++row) {
            const auto core = coreHeadroom(view.model()->workload(row));
            QVERIFY(core);
            QCOMPARE(*view.boundPercent(row, true),
                     100.0 * core->categoryHeadroomShare(Category::Addressable));
            QCOMPARE(*view.boundPercent(row, false), 100.0 * core->headroomShare());
            // The value label starts after the bar and the lines.
            QVERIFY(!view.valueLabel(row).isEmpty());
        }
        QVERIFY(view.boundLegend(true)->name().contains("speed of light"));
        QVERIFY(view.boundLegend(false)->name().contains("all kernels"));
        QVERIFY(view.footerText().contains("roofline"));
        // The figure's CSV carries the bounds beside the projection.
        const FigureTable t = view.figureData();
        const auto col = std::find(t.columns.begin(), t.columns.end(),
                                   "sol_bound_addressable_percent_of_gpu_time");
        QVERIFY(col != t.columns.end());
        const auto core = coreHeadroom(m_session.workloads()[0]);
        QCOMPARE(std::get<double>(t.rows[0][size_t(col - t.columns.begin())]),
                 100.0 * core->categoryHeadroomShare(Category::Addressable));
    }

    // reach-cli figure roofline/headroom: the GUI's plot code; the CSV is the view's table.
    void cliFigures() {
        const QString shapes = QStringLiteral(REACH_DATASETS "/profiles/h200-shapes");
        int status = -1;
        const QString pdf = m_dir.filePath("roofline.pdf");
        QString out = run(
            {"figure", "roofline", shapes, "--workload", "dlrm_inference", "--out", pdf, "--json"},
            &status);
        QVERIFY2(status == 0, qPrintable(out));
        QVERIFY(QFile::exists(pdf));
        RooflineView view(&m_session);
        QVERIFY(view.setWorkloadByName("dlrm_inference"));
        QFile csv(m_dir.filePath("roofline.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(csv.readAll()),
                 QString::fromStdString(figureTableCsv(view.figureData())));
        QFile prov(m_dir.filePath("roofline.json"));
        QVERIFY(prov.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(prov.readAll()).object()["workload"].toString(),
                 QStringLiteral("dlrm_inference"));

        out = run({"figure", "headroom", shapes, "--out", m_dir.filePath("headroom.pdf")}, &status);
        QVERIFY2(status == 0, qPrintable(out));
        QFile hcsv(m_dir.filePath("headroom.csv"));
        QVERIFY(hcsv.open(QIODevice::ReadOnly));
        HeadroomPlot plot;
        plot.setWorkloads(m_session.workloads());
        QCOMPARE(QString::fromUtf8(hcsv.readAll()),
                 QString::fromStdString(figureTableCsv(plot.figureData())));

        // Bad input: one line naming what was expected, exit status 2.
        out = run(
            {"figure", "roofline", shapes, "--workload", "nope", "--out", m_dir.filePath("x.pdf")},
            &status);
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("--workload 'nope'") && out.contains("dlrm_inference"),
                 qPrintable(out));
        out = run({"figure", "headroom", shapes, "--workload", "dlrm_inference", "--out",
                   m_dir.filePath("x.pdf")},
                  &status);
        QCOMPARE(status, 2);
        QVERIFY(out.contains("--workload is for the roofline figure"));
    }

private:
    Session m_session;
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestHeadroomViews)
#include "headroomviews_test.moc"
