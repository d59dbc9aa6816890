#include "ui/plots/rooflineplot.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/analysis/kernelname.h"
#include "core/project/workloadheadroom.h"
#include "ui/figure/figurelabels.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/plotrows.h"
#include "ui/qtstrings.h"
#include "ui/theme.h"

namespace reach {

namespace {

constexpr double kMinDiameter = 6, kMaxDiameter = 22;

// Decade ticks with plain labels (0.01 ... 1000, then 1e4): a log axis's own labels print
// "1e+03", which reads poorly in a paper.
QSharedPointer<QCPAxisTickerText> decadeTicker(double low, double high) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int e = int(std::floor(std::log10(low))); e <= int(std::ceil(std::log10(high))); ++e) {
        const double v = std::pow(10.0, e);
        ticker->addTick(
            v, e >= -2 && e <= 3 ? QString::number(v, 'g', 4) : QStringLiteral("1e%1").arg(e));
    }
    return ticker;
}

QString percentText(double share) {
    return QString::number(100.0 * share, 'f', share < 0.1 ? 1 : 0) + QLatin1Char('%');
}

}  // namespace

RooflinePlot::RooflinePlot(QWidget* parent) : QCustomPlot(parent) {
    setMinimumHeight(240);
    setMinimumWidth(kPlotMinimumWidth);
    setMouseTracking(true);
    xAxis->setScaleType(QCPAxis::stLogarithmic);
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    yAxis->setLabel(tr("Achieved TFLOP/s"));
    // Legend in a row above the plot, the GPU row and what is not plotted below it.
    addLegendRowAbove(this, 6);
    m_footer = new QCPTextElement(this, QString(), Theme::plotFont(8));
    plotLayout()->addElement(2, 0, m_footer);
    plotLayout()->setRowStretchFactor(2, 0.001);

    for (Category c : kCategories) {
        QCPGraph* g = addGraph();
        g->setName(toQString(categoryLabel(c)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, Theme::categoryColor(c),
                                           Theme::categoryColor(c), 7));
        g->setSelectable(QCP::stNone);
        m_legendGraphs.push_back(g);  // legend only: no data
    }
    m_roofBf16 = addGraph();
    m_roofBf16->setSelectable(QCP::stNone);
    m_roofFp32 = addGraph();
    m_roofFp32->setSelectable(QCP::stNone);
    m_ring = addGraph();
    m_ring->setLineStyle(QCPGraph::lsNone);
    m_ring->setSelectable(QCP::stNone);
    m_ring->removeFromLegend();
    m_ring->setProperty(kScreenOnlyProperty, true);
    // The caption is wrapped to the plot's width (a long workload name on a single-column page).
    connect(this, &QCustomPlot::afterLayout, this, &RooflinePlot::wrapFooter);
    refreshStyle();
}

void RooflinePlot::wrapFooter() {
    wrapCaption(this, m_footer, m_footerText);
}

void RooflinePlot::refreshStyle() {
    Theme::stylePlot(this);
    m_footer->setTextColor(footerTextColor());
    rebuild();
}

void RooflinePlot::setWorkload(const std::string& name,
                               std::shared_ptr<const WorkloadHeadroom> headroom, bool none) {
    m_name = name;
    m_headroom = std::move(headroom);
    m_none = none;
    rebuild();
}

void RooflinePlot::clearPoints() {
    for (const Point& p : m_points)
        removeGraph(p.graph);
    m_points.clear();
}

void RooflinePlot::rebuild() {
    clearPoints();
    const QColor fg = plotTextColor();
    const Headroom* h = m_headroom && m_headroom->headroom ? &*m_headroom->headroom : nullptr;
    // Largest first, so small points are drawn on top of large ones.
    std::vector<const KernelRoofline*> plotted;
    if (h) {
        for (const KernelRoofline& k : h->kernels) {
            if (isRooflinePlotted(k))
                plotted.push_back(&k);
        }
    }
    std::stable_sort(
        plotted.begin(), plotted.end(),
        [](const KernelRoofline* a, const KernelRoofline* b) { return a->us > b->us; });
    const double maxUs = plotted.empty() ? 1.0 : plotted.front()->us;
    double xLow = 1e300, xHigh = 0, yLow = 1e300;
    std::array<bool, 4> present{};
    for (const KernelRoofline* k : plotted) {
        Point p;
        p.name = k->name;
        p.op = k->op;
        p.category = k->category;
        p.intensity = k->intensity();
        p.flopsPerSecond = k->achievedFlopsPerSecond();
        p.us = k->us;
        p.fractionOfSol = k->fractionOfSol();
        // Area proportional to time.
        p.diameterPx = kMinDiameter + (kMaxDiameter - kMinDiameter) * std::sqrt(k->us / maxUs);
        QColor fill = Theme::categoryColor(k->category);
        fill.setAlpha(190);
        p.graph = addGraph();
        p.graph->setLineStyle(QCPGraph::lsNone);
        p.graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc,
                                                 Theme::categoryColor(k->category).darker(140),
                                                 fill, p.diameterPx));
        p.graph->setSelectable(QCP::stNone);
        p.graph->removeFromLegend();
        p.graph->addData(p.intensity, p.flopsPerSecond / 1e12);
        present[size_t(k->category)] = true;
        xLow = std::min(xLow, p.intensity);
        xHigh = std::max(xHigh, p.intensity);
        yLow = std::min(yLow, p.flopsPerSecond / 1e12);
        m_points.push_back(std::move(p));
    }
    for (Category c : kCategories) {
        QCPGraph* g = m_legendGraphs[size_t(c)];
        if (present[size_t(c)])
            g->addToLegend();
        else
            g->removeFromLegend();
    }
    const double peak = h ? h->gpu.flopsPerSecond(Peak::Bf16) / 1e12 : 1000.0;
    const double ridge = h ? h->gpu.flopsPerSecond(Peak::Bf16) / h->gpu.bytesPerSecond() : 200.0;
    if (m_points.empty()) {
        xLow = 0.01;
        xHigh = 1000;
        yLow = 0.01;
    }
    xLow = std::pow(10.0, std::floor(std::log10(xLow / 2)));
    // The lower ends on a decade (a labelled tick at the corner), the upper ones just past the
    // points, the ridge and the peak: no empty decade above the roofline.
    xHigh = std::max(xHigh, ridge) * 3;
    yLow = std::pow(10.0, std::floor(std::log10(yLow / 2)));
    const double yHigh = peak * 2.5;
    xAxis->setRange(xLow, xHigh);
    yAxis->setRange(yLow, yHigh);
    xAxis->setTicker(decadeTicker(xLow, xHigh));
    yAxis->setTicker(decadeTicker(yLow, yHigh));
    m_roofBf16->setPen(QPen(fg, 1.5));
    m_roofFp32->setPen(QPen(fg, 1.0, Qt::DashLine));
    drawRoofline(xLow, xHigh);

    // The title line (workload, GPU row) and what is not plotted, both kept in the figure.
    QStringList footer;
    if (!m_none && h) {
        footer << tr("%1 on %2 (%3 GB/s)")
                      .arg(toQString(m_name), toQString(h->gpu.name))
                      .arg(h->gpu.dramGBs, 0, 'f', 0);
    } else if (!m_none) {
        footer << toQString(m_name);
    }
    const QString note = noteText();
    for (const QString& line : note.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        footer << line;
    m_footerText = footer.join(QLatin1Char('\n'));
    m_footer->setText(m_footerText);
    updateSelection();
}

void RooflinePlot::drawRoofline(double xLow, double xHigh) {
    const Headroom* h = m_headroom && m_headroom->headroom ? &*m_headroom->headroom : nullptr;
    m_roofBf16->data()->clear();
    m_roofFp32->data()->clear();
    m_roofBf16->setVisible(h != nullptr);
    m_roofFp32->setVisible(h != nullptr);
    if (!h) {
        m_roofBf16->removeFromLegend();
        m_roofFp32->removeFromLegend();
        return;
    }
    const double bw = h->gpu.bytesPerSecond();
    // min(I * BW, peak) is two straight lines on log axes: the ends and the ridge suffice.
    auto draw = [&](QCPGraph* g, double peakFlops) {
        const double ridge = peakFlops / bw;
        QVector<double> xs{xLow}, ys{std::min(xLow * bw, peakFlops) / 1e12};
        if (ridge > xLow && ridge < xHigh) {
            xs << ridge;
            ys << peakFlops / 1e12;
        }
        xs << xHigh;
        ys << std::min(xHigh * bw, peakFlops) / 1e12;
        g->setData(xs, ys, true);
        g->addToLegend();
    };
    draw(m_roofBf16, h->gpu.flopsPerSecond(Peak::Bf16));
    draw(m_roofFp32, h->gpu.flopsPerSecond(Peak::Vector));
    m_roofBf16->setName(tr("roofline, BF16 %1 TFLOP/s").arg(h->gpu.bf16Tflops, 0, 'f', 0));
    m_roofFp32->setName(tr("FP32 %1 TFLOP/s").arg(h->gpu.fp32Tflops, 0, 'f', 0));
}

QString RooflinePlot::noteText() const {
    if (m_none)
        return tr("no workload");
    if (!m_headroom || !m_headroom->headroom)
        return tr("no roofline: %1").arg(toQString(m_headroom ? m_headroom->why : std::string()));
    const Headroom& h = *m_headroom->headroom;
    if (!m_headroom->estimated())
        return tr("nothing plotted: %1").arg(toQString(m_headroom->why));
    int none = 0, noFlops = 0;
    double noneUs = 0, noFlopsUs = 0;
    for (const KernelRoofline& k : h.kernels) {
        if (k.estimatedUs <= 0) {
            ++none;
            noneUs += k.us;
        } else if (!isRooflinePlotted(k)) {
            ++noFlops;
            noFlopsUs += k.us;
        }
    }
    const double gpu = h.gpuTimeUs > 0 ? h.gpuTimeUs : 1;
    QStringList lines;
    lines << tr("%1 kernels plotted (%2 of GPU time)")
                 .arg(m_points.size())
                 .arg(percentText(1 - (noneUs + noFlopsUs) / gpu));
    if (none > 0)
        lines
            << tr("not plotted: %1 with no estimate (%2)").arg(none).arg(percentText(noneUs / gpu));
    if (noFlops > 0)
        lines << tr("not plotted: %1 without FLOPs, copies etc. (%2)")
                     .arg(noFlops)
                     .arg(percentText(noFlopsUs / gpu));
    return lines.join(QLatin1Char('\n'));
}

QString RooflinePlot::footerText() const {
    return m_footer->text();
}

QPoint RooflinePlot::pixelOf(int index) const {
    const Point& p = m_points[size_t(index)];
    return QPoint(int(std::lround(xAxis->coordToPixel(p.intensity))),
                  int(std::lround(yAxis->coordToPixel(p.flopsPerSecond / 1e12))));
}

int RooflinePlot::pointAt(const QPoint& pos) const {
    int best = -1;
    double bestDistance = 1e300;
    for (int i = 0; i < int(m_points.size()); ++i) {
        const QPointF d = QPointF(pixelOf(i) - pos);
        const double distance = std::hypot(d.x(), d.y());
        if (distance <= m_points[size_t(i)].diameterPx / 2 + 3 && distance <= bestDistance) {
            best = i;
            bestDistance = distance;
        }
    }
    return best;
}

QString RooflinePlot::tipText(int index) const {
    if (index < 0 || index >= int(m_points.size()))
        return {};
    const Point& p = m_points[size_t(index)];
    // The point's work is its operator call's, shared by time among the call's kernels
    // (core/headroom/headroom.h): said, so a point is not read as the kernel's own counters.
    return tr("%1\noperator %2, %3\n%4 FLOP/byte, %5 TFLOP/s achieved\n%6 of speed of light, "
              "%7 us\n(the operator call's work, shared among its kernels by their time)")
        .arg(toQString(kernelDisplayName(p.name, 80)), toQString(p.op),
             toQString(categoryLabel(p.category)))
        .arg(p.intensity, 0, 'g', 3)
        .arg(p.flopsPerSecond / 1e12, 0, 'g', 3)
        .arg(percentText(p.fractionOfSol))
        .arg(p.us, 0, 'f', 1);
}

bool RooflinePlot::selectKernel(const QString& fullName) {
    m_selected.clear();
    for (const Point& p : m_points) {
        if (toQString(p.name) == fullName)
            m_selected = fullName;
    }
    updateSelection();
    return !m_selected.isEmpty();
}

void RooflinePlot::updateSelection() {
    m_ring->data()->clear();
    for (const Point& p : m_points) {
        if (toQString(p.name) != m_selected)
            continue;
        m_ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(plotTextColor(), 2),
                                                Qt::NoBrush, p.diameterPx + 6));
        m_ring->addData(p.intensity, p.flopsPerSecond / 1e12);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

FigureTable RooflinePlot::figureData() const {
    if (m_none || !m_headroom || !m_headroom->headroom)
        return rooflineFigureTable(m_name, Headroom{});
    return rooflineFigureTable(m_name, *m_headroom->headroom);
}

}  // namespace reach
