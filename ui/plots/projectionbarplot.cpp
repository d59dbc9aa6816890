#include "ui/plots/projectionbarplot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/project/workloadheadroom.h"
#include "ui/figure/figurestyle.h"
#include "ui/models/projectionmodel.h"
#include "ui/plots/plotrows.h"
#include "ui/qtstrings.h"
#include "ui/theme.h"

namespace reach {

namespace {
const QString kFooterSeparator = QStringLiteral("  \u00b7  ");
}  // namespace

ProjectionBarPlot::ProjectionBarPlot(const ProjectionModel* model, QWidget* parent)
    : QCustomPlot(parent), m_model(model) {
    setMinimumWidth(kPlotMinimumWidth);
    m_gainBars = new QCPBars(yAxis, xAxis);
    m_gainBars->setWidthType(QCPBars::wtPlotCoords);
    m_gainBars->setWidth(0.62);
    m_gainBars->setPen(Qt::NoPen);
    m_gainBars->setBrush(Theme::categoryColor(Category::Addressable));
    m_gainBars->setSelectable(QCP::stNone);
    // Legend names short enough for three to a row at 1280x720 (issue 40: five rows of legend
    // left the bars a strip); the footer and the F1 guide say the rest.
    m_gainBars->setName(tr("study's projection A*w*(1-1/m)"));
    // The exact projection, where a workload has one: a narrower bar inside the study's, so the
    // two read as a pair without moving any row (docs/benchmark.md, "The exact projection").
    m_exact = makeRangeBars(0.26, Theme::categoryColor(Category::LibraryOptimized),
                            tr("exact projection (its own benchmark)"));
    // Measured in place (reach-cli integrate): thinner still, in the addressable colour, so the
    // three read as a set: the study's, the exact projection, what putting the kernels back did.
    m_measured = makeRangeBars(0.1, Theme::categoryColor(Category::Addressable).darker(140),
                               tr("measured: kernels put back"));
    // An integration document Reach did not measure here (unsigned, edited, another user's, or
    // past the speed of light): drawn where it says, in grey, and never called measured.
    m_claimed = makeRangeBars(0.1, QColor(150, 150, 150), tr("claimed: not measured here"));
    // The speed-of-light bound (core/headroom) is drawn across each bar as a line item; these
    // graphs hold no data and only give the lines their legend entries.
    m_boundLegend = addGraph(yAxis, xAxis);
    m_boundLegend->setName(tr("speed of light: addressable"));
    m_boundAllLegend = addGraph(yAxis, xAxis);
    m_boundAllLegend->setName(tr("speed of light: all kernels"));
    for (QCPGraph* g : {m_boundLegend, m_boundAllLegend})
        g->setSelectable(QCP::stNone);
    addLegendRowAbove(this, 3);
    xAxis->setLabel(tr("Projected end-to-end gain (% of GPU time saved)"));
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    yAxis->grid()->setVisible(false);

    // The rule set the shares come from, as under the breakdown: a figure says what made it.
    plotLayout()->insertRow(2);
    m_footer = new QCPTextElement(this, QString(), Theme::plotFont(8));
    plotLayout()->addElement(2, 0, m_footer);
    plotLayout()->setRowStretchFactor(2, 0.001);
    connect(this, &QCustomPlot::afterLayout, this, &ProjectionBarPlot::fitValueLabels);
}

void ProjectionBarPlot::refreshStyle() {
    Theme::stylePlot(this);
    m_footer->setTextColor(footerTextColor());
    updateBounds();
    updateBars();
}

std::vector<ProjectWorkload> ProjectionBarPlot::rows() const {
    std::vector<ProjectWorkload> out;
    for (int r = 0; r < m_model->rowCount(); ++r)
        out.push_back(m_model->workload(r));
    return out;
}

void ProjectionBarPlot::setRows() {
    m_labels = rowLabels(rows());
    // How many rows a figure of this plot must give a line each: the axis names only every k-th
    // on a small screen (fitValueLabels), and a figure's height counted from those names was
    // the screen's, not the data's (issue 40: 208 pt in the GUI, 292 pt from reach-cli).
    setProperty("reach_category_count", int(m_labels.size()));
    updateBounds();
    updateFooter();
    updateBars();
}

void ProjectionBarPlot::setRuleSet(const QString& name, const QString& hash) {
    m_rulesName = name;
    m_rulesHash = hash;
    updateFooter();
    replot(QCustomPlot::rpQueuedReplot);
}

void ProjectionBarPlot::setEmphasizedRow(int row) {
    if (row == m_emphasized)
        return;
    m_emphasized = row;
    updateBars();
}

void ProjectionBarPlot::setAxisHeld(bool held) {
    m_axisHeld = held;
    if (!held)
        updateBars();  // released: the axis fits the values again
}

// One line per bound across each bar with an estimate: what no kernel, generated or
// hand-written, can beat on this profile, next to what the study's projection expects.
void ProjectionBarPlot::updateBounds() {
    for (const auto& [a, all] : m_boundLines) {
        if (a)
            removeItem(a);
        if (all)
            removeItem(all);
    }
    m_boundLines.clear();
    const QPen solid(plotTextColor(), 1.6), dashed(plotTextColor(), 1.0, Qt::DashLine);
    m_boundLegend->setPen(solid);
    m_boundAllLegend->setPen(dashed);
    bool any = false;
    const int n = m_model->rowCount();
    for (int row = 0; row < n; ++row) {
        const auto wh = headroomOf(m_model->workload(row));
        if (!wh->estimated()) {
            m_boundLines.push_back({nullptr, nullptr});
            continue;
        }
        any = true;
        const double key = n - 1 - row;
        auto line = [&](double percent, const QPen& pen) {
            auto* l = new QCPItemLine(this);
            l->setSelectable(false);
            l->setPen(pen);
            l->start->setAxes(xAxis, yAxis);
            l->end->setAxes(xAxis, yAxis);
            l->start->setCoords(percent, key - 0.42);
            l->end->setCoords(percent, key + 0.42);
            return l;
        };
        const Headroom& h = *wh->headroom;
        m_boundLines.push_back({line(100.0 * h.categoryHeadroomShare(Category::Addressable), solid),
                                line(100.0 * h.headroomShare(), dashed)});
    }
    for (QCPGraph* g : {m_boundLegend, m_boundAllLegend}) {
        if (any)
            g->addToLegend();
        else
            g->removeFromLegend();
    }
}

std::optional<double> ProjectionBarPlot::boundPercent(int row, bool addressableOnly) const {
    if (row < 0 || row >= int(m_boundLines.size()))
        return std::nullopt;
    const QCPItemLine* l =
        addressableOnly ? m_boundLines[size_t(row)].first : m_boundLines[size_t(row)].second;
    if (!l)
        return std::nullopt;
    return l->start->coords().x();
}

// The farthest bound line of any row: the gain axis must show it.
double ProjectionBarPlot::farthestBound() const {
    double x = 0;
    for (const auto& [a, all] : m_boundLines)
        for (const QCPItemLine* l : {a, all})
            if (l)
                x = std::max(x, l->start->coords().x());
    return x;
}

QString ProjectionBarPlot::footerText() const {
    return m_footer->text();
}

QString ProjectionBarPlot::valueLabel(int row) const {
    if (row < 0 || row >= int(m_valueLabels.size()))
        return {};
    return m_valueLabels[size_t(row)]->text();
}

QRectF ProjectionBarPlot::valueLabelRect(int row) const {
    if (row < 0 || row >= int(m_valueLabels.size()) || !m_valueLabels[size_t(row)]->visible())
        return {};
    const QCPItemText* t = m_valueLabels[size_t(row)];
    return QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
}

// Where a row's value label starts: after its longest bar (the study's, or the exact one's
// interval).
double ProjectionBarPlot::labelAnchor(int row) const {
    double x = m_model->gainPercent(row);
    if (const auto e = m_model->exact(row))
        x = std::max(x, e->hiPercent);
    if (const auto m = m_model->measured(row))
        x = std::max(x, m->highPercent);
    return x;
}

ProjectionBarPlot::RangeBars ProjectionBarPlot::makeRangeBars(double width, const QColor& color,
                                                              const QString& name) {
    RangeBars r;
    r.bars = new QCPBars(yAxis, xAxis);
    r.bars->setWidthType(QCPBars::wtPlotCoords);
    r.bars->setWidth(width);
    r.bars->setPen(Qt::NoPen);
    r.bars->setBrush(color);
    r.bars->setSelectable(QCP::stNone);
    r.bars->setName(name);
    r.bars->removeFromLegend();
    r.errors = new QCPErrorBars(yAxis, xAxis);
    r.errors->setDataPlottable(r.bars);
    r.errors->setErrorType(QCPErrorBars::etValueError);
    r.errors->setSelectable(QCP::stNone);
    r.errors->removeFromLegend();
    return r;
}

// A value below 0 (a measured loss) draws no bar, the axis starting at 0; the label and the CSV
// keep its sign.
void ProjectionBarPlot::setRangeBars(const RangeBars& r, const std::vector<RangePoint>& points) {
    QVector<double> keys, values, below, above;
    for (const RangePoint& p : points) {
        keys.push_back(p.key);
        values.push_back(std::max(0.0, p.value));
        below.push_back(std::max(0.0, p.value - p.low));
        above.push_back(std::max(0.0, p.high - p.value));
    }
    r.bars->setData(keys, values, true);
    r.errors->setData(below, above);
    r.errors->setPen(QPen(plotTextColor(), 1.2));
    if (keys.isEmpty())
        r.bars->removeFromLegend();
    else
        r.bars->addToLegend();
}

// A value label starts right after its bar, so it reads as the bar's; a bound line that crosses
// it is drawn over it (the lines are made after the labels). The axis reaches the lines anyway.
void ProjectionBarPlot::updateBars() {
    const int n = m_model->rowCount();
    // Text items are reused: only their positions and strings change while a slider moves.
    while (int(m_valueLabels.size()) < n) {
        auto* t = new QCPItemText(this);
        t->setSelectable(false);
        t->setFont(Theme::plotFont(8));
        // Above the bars and the speed-of-light lines, on the plot's background: a line never
        // runs through a value (issue 40, defect 9); a figure's page fills it white.
        t->setLayer(QStringLiteral("axes"));
        t->setBrush(Theme::plotBackground());
        t->setPadding(QMargins(1, 0, 1, 0));
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        t->setProperty(kScreenOnlyEmphasis, true);  // bold = the heat map's row, on screen
        m_valueLabels.push_back(t);
    }
    while (int(m_valueLabels.size()) > n) {
        removeItem(m_valueLabels.back());
        m_valueLabels.pop_back();
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys(n), values(n);
    double maxGain = 0;
    for (int row = 0; row < n; ++row) {
        const double key = n - 1 - row;
        const double gain = m_model->gainPercent(row);
        keys[n - 1 - row] = key;
        values[n - 1 - row] = gain;
        maxGain = std::max(maxGain, gain);
        const ProjectWorkload& w = m_model->workload(row);
        if (size_t(row) < m_labels.size() && row % m_tickStride == 0)
            ticker->addTick(key, toQString(m_labels[size_t(row)].text()));
        QCPItemText* t = m_valueLabels[size_t(row)];
        // Both bases: of GPU time (the bar) and of the profiled wall clock, with the busy share
        // beside it; a mostly idle GPU is flagged (kLowBusyShare).
        const Projection& p = m_model->projection(row);
        QString label = QString::number(gain, 'f', 2) + QLatin1Char('%');
        if (const auto wall = p.wallSavedShare()) {
            label += tr("  (wall %1%, busy %2%%3)")
                         .arg(100.0 * *wall, 0, 'f', 2)
                         .arg(100.0 * p.wall->busyShare(), 0, 'f', 0)
                         .arg(p.wall->mostlyIdle() ? tr(" \u26a0") : QString());
        } else if (w.published) {
            label += tr("  (published: no span)");
        }
        // The short form: every value, none of the details (a narrow plot prints it).
        QString brief = QString::number(gain, 'f', 2) + QLatin1Char('%');
        if (const auto x = m_model->exact(row)) {
            label += tr("; exact %1% (%2 of %3 verified)")
                         .arg(x->savedPercent, 0, 'f', 2)
                         .arg(x->winners)
                         .arg(x->problems);
            brief += tr("; exact %1%").arg(x->savedPercent, 0, 'f', 2);
            maxGain = std::max(maxGain, x->hiPercent);
        }
        if (const auto m = m_model->measured(row)) {
            // Both of what the run measured, labelled (issue 40: the wall clock's change, -73.9 %
            // on DLRM, was only in the CSV): the GPU time saved, then the wall clock's change.
            const QString wall =
                !m->wallSavedPercent ? QString()
                : *m->wallSavedPercent >= 0
                    ? tr(", wall clock %1% shorter").arg(*m->wallSavedPercent, 0, 'f', 1)
                    : tr(", wall clock %1% longer").arg(-*m->wallSavedPercent, 0, 'f', 1);
            label += (m->measuredHere
                          ? tr("; measured %1% of GPU time%3 (%2 pairs of runs)")
                          : tr("; claimed %1% of GPU time%3 (%2 pairs of runs; not measured here)"))
                         .arg(m->savedPercent, 0, 'f', 2)
                         .arg(m->pairs)
                         .arg(wall);
            brief += (m->measuredHere ? tr("; measured %1%") : tr("; claimed %1%"))
                         .arg(m->savedPercent, 0, 'f', 2);
            maxGain = std::max(maxGain, m->highPercent);
        }
        t->setText(label);
        t->setProperty("reach_full_label", label);
        t->setProperty("reach_brief_label", brief);
        t->setColor(plotTextColor());
        t->setBrush(Theme::plotBackground());
        QFont f = t->font();
        f.setBold(row == m_emphasized);
        t->setFont(f);
    }
    m_gainBars->setData(keys, values, true);
    std::vector<RangePoint> exact, measured, claimed;
    for (int row = n - 1; row >= 0; --row) {
        if (const auto x = m_model->exact(row))
            exact.push_back({double(n - 1 - row), x->savedPercent, x->loPercent, x->hiPercent});
        if (const auto m = m_model->measured(row))
            (m->measuredHere ? measured : claimed)
                .push_back({double(n - 1 - row), m->savedPercent, m->lowPercent, m->highPercent});
    }
    setRangeBars(m_exact, exact);
    setRangeBars(m_measured, measured);
    setRangeBars(m_claimed, claimed);
    yAxis->setTicker(ticker);
    yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    // Room on the right for the value labels; the axis only grows in coarse steps so it does not
    // jitter while a slider is dragged.
    double upper =
        std::max({1.0, std::ceil(maxGain * 1.25 / 2.0) * 2.0, std::ceil(farthestBound() * 1.02)});
    if (m_axisHeld)
        upper = std::max(upper, xAxis->range().upper);
    m_baseUpper = upper;
    xAxis->setRange(0, upper);
    for (int row = 0; row < n; ++row)
        m_valueLabels[size_t(row)]->position->setCoords(labelAnchor(row) + upper * 0.01,
                                                        n - 1 - row);
    replot(QCustomPlot::rpQueuedReplot);
}

// Once the plot knows its size (on screen, or a figure's page): the gain axis reaches far enough
// for the widest value label to end inside the plot; a label too long for any axis (a narrow
// figure) keeps only the gain.
void ProjectionBarPlot::fitValueLabels() {
    const double width = axisRect()->width();
    if (width <= 0)
        return;
    fitFooter(plotLayout()->outerRect().width() - 8);
    const int n = m_model->rowCount();
    const double rowPx = std::abs(yAxis->coordToPixel(1.0) - yAxis->coordToPixel(0.0));
    const double linePx = QFontMetricsF(yAxis->tickLabelFont()).height();
    const int stride = rowPx > 0 ? std::max(1, int(std::ceil(linePx / rowPx))) : 1;
    if (stride != m_tickStride) {
        m_tickStride = stride;
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int row = 0; row < n && row < int(m_labels.size()); row += stride)
            ticker->addTick(n - 1 - row, toQString(m_labels[size_t(row)].text()));
        yAxis->setTicker(ticker);
        plotLayout()->update(QCPLayoutElement::upPreparation);
        plotLayout()->update(QCPLayoutElement::upMargins);
        plotLayout()->update(QCPLayoutElement::upLayout);
    }
    // Rows closer than a line of the labels' font (a hundred workloads on a screen) would print
    // the values on top of each other: then the bars alone, and the values in the hover and the
    // CSV. It also spares drawing a hundred texts on every slider move.
    if (!m_valueLabels.empty()) {
        const bool fit = rowPx >= 0.9 * QFontMetricsF(m_valueLabels.front()->font()).height();
        for (QCPItemText* t : m_valueLabels)
            t->setVisible(fit);
        if (!fit)
            return;
    }
    double upper = m_axisHeld ? std::max(m_baseUpper, xAxis->range().upper) : m_baseUpper;
    for (int row = 0; row < int(m_valueLabels.size()) && row < n; ++row) {
        QCPItemText* t = m_valueLabels[size_t(row)];
        const double gain = m_model->gainPercent(row), anchor = labelAnchor(row);
        const QFontMetricsF tm(t->font());
        // The bars keep at least 30 % of the plot's width, on a page and on a screen (at
        // 1280x720 the label with the exact and measured values was wider than the plot): the
        // whole label where it leaves them that, else every value without its details, else the
        // gain. The hover and the CSV have the whole label always.
        QString text;
        for (const QString& candidate : {t->property("reach_full_label").toString(),
                                         t->property("reach_brief_label").toString(),
                                         QString::number(gain, 'f', 2) + QLatin1Char('%')}) {
            text = candidate;
            if (width * 0.99 - tm.horizontalAdvance(text) - 8 >= width * 0.3)
                break;
        }
        t->setText(text);
        const double room = width * 0.99 - tm.horizontalAdvance(text) - 8;
        if (room > 0)
            upper = std::max(upper, anchor * width / room);
    }
    if (upper != xAxis->range().upper) {
        xAxis->setRange(0, upper);
        for (int row = 0; row < int(m_valueLabels.size()) && row < n; ++row)
            m_valueLabels[size_t(row)]->position->setCoords(labelAnchor(row) + upper * 0.01,
                                                            n - 1 - row);
    }
}

// The footer's parts: the rule set, what the lines are, what the warning sign means. Their
// number depends on the data, never on the sliders; fitFooter lays them out.
void ProjectionBarPlot::updateFooter() {
    m_footerParts = {tr("Rule set: %1 (%2)").arg(m_rulesName, m_rulesHash.left(12))};
    bool anyBound = false;
    for (const auto& lines : m_boundLines)
        anyBound = anyBound || lines.first;
    if (anyBound)
        m_footerParts << tr("lines: GPU time saved at the roofline (speed of light)");
    bool anyIdle = false;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const Projection& p = m_model->projection(row);
        anyIdle = anyIdle || (p.wall && p.wall->mostlyIdle());
    }
    if (anyIdle)
        m_footerParts << tr("\u26a0 GPU busy under %1% of the span: the wall clock gains less")
                             .arg(100.0 * kLowBusyShare, 0, 'f', 0);
    m_footer->setText(m_footerParts.join(kFooterSeparator));
}

// One line where it fits the plot's width (a screen), else as few lines as fit (a 3.5 in
// figure): the parts are never cut.
void ProjectionBarPlot::fitFooter(double width) {
    const QFontMetricsF fm(m_footer->font());
    QStringList lines;
    for (const QString& part : m_footerParts) {
        const QString joined = lines.isEmpty() ? part : lines.back() + kFooterSeparator + part;
        if (!lines.isEmpty() && fm.horizontalAdvance(joined) <= width)
            lines.back() = joined;
        else
            lines << part;
    }
    const QString text = lines.join(QLatin1Char('\n'));
    if (text == m_footer->text())
        return;
    m_footer->setText(text);
    plotLayout()->update(QCPLayoutElement::upPreparation);
    plotLayout()->update(QCPLayoutElement::upMargins);
    plotLayout()->update(QCPLayoutElement::upLayout);
}

int ProjectionBarPlot::rowAt(const QPointF& pos) const {
    const int n = m_model->rowCount();
    const int key = int(std::lround(yAxis->pixelToCoord(pos.y())));
    const int row = n - 1 - key;
    if (!axisRect()->rect().contains(pos.toPoint()) || row < 0 || row >= n)
        return -1;
    return row;
}

QString ProjectionBarPlot::hoverText(int row) const {
    if (row < 0 || row >= int(m_labels.size()) || row >= int(m_valueLabels.size()))
        return {};
    return toQString(m_labels[size_t(row)].full) + QLatin1Char('\n') +
           m_valueLabels[size_t(row)]->property("reach_full_label").toString();
}

FigureTable ProjectionBarPlot::figureData() const {
    const std::vector<ProjectWorkload> all = rows();
    FigureTable t = projectionFigureTable(all, m_model->winRate(), m_model->medianSpeedup());
    // The bound lines' numbers beside the projection's (core/headroom; NaN: no estimate).
    t.columns.push_back("sol_bound_addressable_percent_of_gpu_time");
    t.columns.push_back("sol_bound_all_kernels_percent_of_gpu_time");
    for (size_t i = 0; i < t.rows.size() && i < all.size(); ++i) {
        const auto wh = headroomOf(all[i]);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        t.rows[i].emplace_back(
            std::in_place_type<double>,
            wh->estimated() ? 100.0 * wh->headroom->categoryHeadroomShare(Category::Addressable)
                            : nan);
        t.rows[i].emplace_back(std::in_place_type<double>,
                               wh->estimated() ? 100.0 * wh->headroom->headroomShare() : nan);
    }
    // The exact projection beside them (NaN: the workload has none).
    if (m_model->anyExact()) {
        for (const char* c : {"exact_saved_percent_of_gpu_time", "exact_interval_low_percent",
                              "exact_interval_high_percent"})
            t.columns.push_back(c);
        for (size_t i = 0; i < t.rows.size() && int(i) < m_model->rowCount(); ++i) {
            const auto x = m_model->exact(int(i));
            const double nan = std::numeric_limits<double>::quiet_NaN();
            for (double v :
                 {x ? x->savedPercent : nan, x ? x->loPercent : nan, x ? x->hiPercent : nan})
                t.rows[i].emplace_back(std::in_place_type<double>, v);
        }
    }
    // What an integration run measured beside them, and the document it came from.
    if (m_model->anyMeasured()) {
        for (const char* c :
             {"measured_saved_percent_of_gpu_time", "measured_low_percent", "measured_high_percent",
              "measured_wall_saved_percent", "measured_projected_percent", "measured_pairs"})
            t.columns.push_back(c);
        t.columns.push_back("measured_wall_clock_steps");
        t.columns.push_back("measured_evidence");  // "measured here" or "claimed"
        t.columns.push_back("measured_document");
        for (size_t i = 0; i < t.rows.size() && int(i) < m_model->rowCount(); ++i) {
            const auto m = m_model->measured(int(i));
            const double nan = std::numeric_limits<double>::quiet_NaN();
            for (double v :
                 {m ? m->savedPercent : nan, m ? m->lowPercent : nan, m ? m->highPercent : nan,
                  m && m->wallSavedPercent ? *m->wallSavedPercent : nan,
                  m && m->projectedPercent ? *m->projectedPercent : nan,
                  m ? double(m->pairs) : nan})
                t.rows[i].emplace_back(std::in_place_type<double>, v);
            t.rows[i].emplace_back(std::in_place_type<std::string>,
                                   m ? m->wallClockSteps : std::string());
            t.rows[i].emplace_back(std::in_place_type<std::string>, !m ? std::string()
                                                                    : m->measuredHere
                                                                        ? "measured here"
                                                                        : "claimed");
            t.rows[i].emplace_back(std::in_place_type<std::string>,
                                   m ? m->document.toStdString() : std::string());
        }
    }
    return t;
}

}  // namespace reach
