#include "ui/plots/headroomplot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/project/workloadheadroom.h"
#include "ui/figure/figurelabels.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/plotrows.h"
#include "ui/qtstrings.h"
#include "ui/theme.h"

namespace reach {

HeadroomPlot::HeadroomPlot(QWidget* parent) : QCustomPlot(parent) {
    setMinimumHeight(100);
    setProperty(kOneLineLabelsProperty, true);  // legend above, a caption of lines below
    QCPBars* below = nullptr;
    for (Category c : kCategories) {
        auto* b = new QCPBars(yAxis, xAxis);
        b->setName(toQString(categoryLabel(c)));
        b->setWidthType(QCPBars::wtPlotCoords);
        b->setWidth(0.62);
        b->setPen(Qt::NoPen);
        b->setBrush(Theme::categoryColor(c));
        b->setSelectable(QCP::stNone);
        b->removeFromLegend();  // the breakdown above has the category legend
        if (below)
            b->moveAbove(below);
        below = b;
        m_bars[size_t(c)] = b;
    }
    xAxis->setLabel(tr("Saved at the roofline (% of GPU time)"));
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    yAxis->grid()->setVisible(false);
    // The legend is kept for the figure, which stands alone: the category colours.
    addLegendRowAbove(this, 4);
    for (QCPBars* b : m_bars)
        b->addToLegend();
    m_footer = new QCPTextElement(this, QString(), Theme::plotFont(8));
    plotLayout()->addElement(2, 0, m_footer);
    plotLayout()->setRowStretchFactor(2, 0.001);
    connect(this, &QCustomPlot::afterLayout, this, &HeadroomPlot::fitLabels);
    refreshStyle();
}

void HeadroomPlot::setWorkloads(std::vector<ProjectWorkload> rows) {
    m_rows = std::move(rows);
    rebuild();
}

void HeadroomPlot::refreshStyle() {
    Theme::stylePlot(this);
    m_footer->setTextColor(footerTextColor());
    rebuild();
}

double HeadroomPlot::keyOfRow(int row) const {
    return row >= 0 && row < int(m_keys.size()) ? m_keys[size_t(row)]
                                                : std::numeric_limits<double>::quiet_NaN();
}

QString HeadroomPlot::rowLabel(int row) const {
    return row >= 0 && row < m_rowLabels.size() ? m_rowLabels[row] : QString();
}

QString HeadroomPlot::footerText() const {
    return m_footer->text();
}

// Only rows with an estimate get a bar (a row of "no estimate" would say nothing a number
// could be read from); the caption counts the others by why.
void HeadroomPlot::rebuild() {
    const auto& rows = m_rows;
    const int n = int(rows.size());
    for (QCPItemText* t : m_labels) {
        if (t)
            removeItem(t);
    }
    m_labels.assign(size_t(n), nullptr);
    m_totals.assign(size_t(n), 0.0);
    m_keys.assign(size_t(n), std::numeric_limits<double>::quiet_NaN());
    m_rowLabels.clear();
    m_tickNames.clear();
    m_tickStride = 1;
    const QColor text =
        Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::vector<RowLabel> names = rowLabels(rows);
    std::vector<std::shared_ptr<const WorkloadHeadroom>> all;
    int drawn = 0;
    for (const ProjectWorkload& w : rows) {
        all.push_back(headroomOf(w));
        drawn += all.back()->estimated() ? 1 : 0;
    }
    std::array<QVector<double>, 4> keys, values;
    std::vector<std::pair<std::string, int>> missing;  // why, how many rows
    double maxTotal = 0;
    int next = drawn - 1;  // rows run top to bottom, keys bottom to top
    for (int row = 0; row < n; ++row) {
        const WorkloadHeadroom& wh = *all[size_t(row)];
        if (!wh.estimated()) {
            m_rowLabels << tr("no estimate: %1").arg(toQString(wh.why));
            auto it = std::find_if(missing.begin(), missing.end(),
                                   [&](const auto& m) { return m.first == wh.shortWhy; });
            if (it == missing.end())
                missing.push_back({wh.shortWhy, 1});
            else
                ++it->second;
            continue;
        }
        const double key = next--;
        m_keys[size_t(row)] = key;
        ticker->addTick(key, toQString(names[size_t(row)].text()));
        m_tickNames.push_back({key, toQString(names[size_t(row)].text())});
        const Headroom& h = *wh.headroom;
        for (Category c : kCategories) {
            keys[size_t(c)].prepend(key);
            values[size_t(c)].prepend(100.0 * h.categoryHeadroomShare(c));
        }
        m_totals[size_t(row)] = 100.0 * h.headroomShare();
        maxTotal = std::max(maxTotal, m_totals[size_t(row)]);
        QString label = tr("%1% (addr. %2%)")
                            .arg(m_totals[size_t(row)], 0, 'f', 1)
                            .arg(100.0 * h.categoryHeadroomShare(Category::Addressable), 0, 'f', 1);
        if (h.coverage() < 0.995)
            label += tr(", est. %1%").arg(100.0 * h.coverage(), 0, 'f', 0);
        m_rowLabels << label;
        auto* t = new QCPItemText(this);
        t->setSelectable(false);
        t->setFont(Theme::plotFont(8));
        t->setColor(text);
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        t->setText(label);
        t->setProperty("reach_full_label", label);
        t->setProperty("reach_short_label", QString::number(m_totals[size_t(row)], 'f', 1) + '%');
        t->position->setCoords(m_totals[size_t(row)], key);
        m_labels[size_t(row)] = t;
    }
    for (Category c : kCategories) {
        m_bars[size_t(c)]->setData(keys[size_t(c)], values[size_t(c)], true);
        // The legend names the categories that have headroom somewhere.
        if (std::any_of(values[size_t(c)].begin(), values[size_t(c)].end(),
                        [](double v) { return v > 0; }))
            m_bars[size_t(c)]->addToLegend();
        else
            m_bars[size_t(c)]->removeFromLegend();
    }
    yAxis->setTicker(ticker);
    yAxis->setRange(-0.6, std::max(0, drawn - 1) + 0.6);
    setProperty("reach_category_count", drawn);  // a figure gives each drawn row a line
    m_baseUpper = std::max(1.0, std::ceil(maxTotal * 1.25 / 5.0) * 5.0);
    xAxis->setRange(0, m_baseUpper);
    QStringList notDrawn;
    for (const auto& [why, count] : missing)
        notDrawn << QStringLiteral("%1 %2").arg(count).arg(toQString(why));
    QString caption = tr("addr.: the addressable kernels' part; est.: GPU time with an estimate.");
    if (!notDrawn.isEmpty())
        caption += tr(" No estimate, not drawn: %1.").arg(notDrawn.join(QStringLiteral(", ")));
    m_footerText = caption;
    m_footer->setText(m_footerText);
    replot(QCustomPlot::rpQueuedReplot);
}

// Once the plot knows its width (on screen, or a figure's page): the axis reaches far enough
// for each label to end inside the plot; in a figure, a label that would leave its bar less
// than 30 % of the width keeps only the total, and a "no estimate" sentence wider than the plot
// (on screen too) only its first two words.
void HeadroomPlot::fitLabels() {
    fitFooter();
    const double width = axisRect()->width();
    if (width <= 0)
        return;
    fitRowNames();
    double upper = m_baseUpper;
    for (size_t row = 0; row < m_labels.size(); ++row) {
        QCPItemText* t = m_labels[row];
        if (!t)
            continue;
        const QFontMetricsF tm(t->font());
        QString label = t->property("reach_full_label").toString();
        // A row without an estimate has no bar: its sentence may take the whole width.
        const double keep = m_totals[row] > 0 ? width * 0.3 : 0.0;
        if ((property(kExportingProperty).toBool() || m_totals[row] <= 0) &&
            width * 0.99 - tm.horizontalAdvance(label) - 8 < keep)
            label = t->property("reach_short_label").toString();
        t->setText(label);
        const double room = width * 0.99 - tm.horizontalAdvance(label) - 8;
        if (room > 0)
            upper = std::max(upper, m_totals[row] * width / room);
    }
    if (upper != xAxis->range().upper)
        xAxis->setRange(0, upper);
    for (size_t row = 0; row < m_labels.size(); ++row) {
        if (m_labels[row])
            m_labels[row]->position->setCoords(m_totals[row] + upper * 0.01, keyOfRow(int(row)));
    }
}

// Rows closer than a line of the names' font: the axis names every k-th row and the values are
// left to the hover and the CSV (they would print on top of each other); else every name and
// value. A changed stride lays the plot out again.
void HeadroomPlot::fitRowNames() {
    const double rowPx = std::abs(yAxis->coordToPixel(1.0) - yAxis->coordToPixel(0.0));
    const double linePx = QFontMetricsF(yAxis->tickLabelFont()).height();
    const int stride = rowPx > 0 ? std::max(1, int(std::ceil(linePx / rowPx))) : 1;
    for (QCPItemText* t : m_labels)
        if (t)
            t->setVisible(stride == 1);
    if (stride == m_tickStride)
        return;
    m_tickStride = stride;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t i = 0; i < m_tickNames.size(); i += size_t(stride))
        ticker->addTick(m_tickNames[i].first, m_tickNames[i].second);
    yAxis->setTicker(ticker);
    plotLayout()->update(QCPLayoutElement::upPreparation);
    plotLayout()->update(QCPLayoutElement::upMargins);
    plotLayout()->update(QCPLayoutElement::upLayout);
}

// The caption is wrapped to the plot's width (a single-column figure's page is narrow); a
// changed line count lays the plot out again.
void HeadroomPlot::fitFooter() {
    wrapCaption(this, m_footer, m_footerText);
}

FigureTable HeadroomPlot::figureData() const {
    return headroomFigureTable(m_rows);
}

}  // namespace reach
