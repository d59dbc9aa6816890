#include "ui/plots/breakdownplot.h"

#include <algorithm>
#include <cmath>

#include "ui/models/breakdownmodel.h"
#include "ui/plots/plotrows.h"
#include "ui/qtstrings.h"
#include "ui/theme.h"

namespace reach {

namespace {

constexpr double kSplitOffset = 0.2;  // name bar above, operator bar below the row's centre

}  // namespace

BreakdownPlot::BreakdownPlot(const BreakdownModel* model, QWidget* parent)
    : QCustomPlot(parent), m_model(model) {
    setMinimumHeight(220);
    setMinimumWidth(kPlotMinimumWidth);
    setMouseTracking(true);
    for (Category c : kCategories)
        m_bars[size_t(c)] =
            addHorizontalBars(this, toQString(categoryLabel(c)), Theme::categoryColor(c));
    m_unsplit = addHorizontalBars(this, tr("not split by the study"), Theme::unsplitColor());
    m_idle = addHorizontalBars(this, tr("GPU idle"), QColor(0xee, 0xee, 0xee));
    for (Category c : kCategories) {
        QColor color = Theme::categoryColor(c);
        color.setAlpha(150);  // the operator split is the secondary, lighter bar
        m_opBars[size_t(c)] = addHorizontalBars(this, {}, color);
        m_opBars[size_t(c)]->removeFromLegend();
    }
    m_opUnlinked = addHorizontalBars(this, {}, QColor(0xdd, 0xdd, 0xdd));
    m_opUnlinked->removeFromLegend();
    for (size_t i = 1; i < 4; ++i) {
        m_bars[i]->moveAbove(m_bars[i - 1]);
        m_opBars[i]->moveAbove(m_opBars[i - 1]);
    }
    m_unsplit->moveAbove(m_bars[3]);
    m_idle->moveAbove(m_unsplit);
    m_opUnlinked->moveAbove(m_opBars[3]);

    // Legend in its own row above the plot, footer naming the rule set below it.
    addLegendRowAbove(this, 6);
    plotLayout()->setRowSpacing(2);
    m_footer = new QCPTextElement(this, QString(), Theme::plotFont(8));
    plotLayout()->addElement(2, 0, m_footer);
    plotLayout()->setRowStretchFactor(2, 0.001);
    xAxis->setRange(0, 100);
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    yAxis->grid()->setVisible(false);
    m_highlight = new QCPItemRect(this);
    m_highlight->setPen(QPen(QColor(0x20, 0x20, 0x20), 2));
    m_highlight->setBrush(Qt::NoBrush);
    m_highlight->setVisible(false);
    m_highlight->setSelectable(false);
    m_highlight->setProperty("reach_screen_only", true);  // hidden in exported figures
    // On screen and in an exported figure alike, labels are fitted to the laid-out bars.
    connect(this, &QCustomPlot::afterLayout, this, &BreakdownPlot::placeBarLabels);
    refreshStyle();
}

void BreakdownPlot::refreshStyle() {
    Theme::stylePlot(this);
    m_footer->setTextColor(footerTextColor());
    m_highlight->setPen(
        QPen(Theme::mode() == Theme::Mode::Dark ? Qt::white : QColor(0x20, 0x20, 0x20), 2));
    rebuild();
}

void BreakdownPlot::setRuleSet(const QString& name, const QString& hash) {
    m_rulesName = name;
    m_rulesHash = hash;
    updateFooter();
    replot(QCustomPlot::rpQueuedReplot);
}

void BreakdownPlot::setOperatorSplit(bool on) {
    m_operatorSplit = on;
    rebuild();
}

void BreakdownPlot::setHighlight(int row, Category category) {
    m_highlightRow = row;
    m_highlightCategory = category;
    frameHighlight(m_operatorSplit ? 0.36 : 0.66);
    replot(QCustomPlot::rpQueuedReplot);
}

double BreakdownPlot::keyOfRow(int row) const {
    const int n = m_model->rowCount();
    double key = n - 1 - row;
    if (m_operatorSplit && m_model->hasOperatorSplit(row))
        key += kSplitOffset;
    return key;
}

int BreakdownPlot::rowOfBarKey(double key, bool operatorBar) const {
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const double k = keyOfRow(r) - (operatorBar ? 2 * kSplitOffset : 0.0);
        if (std::abs(k - key) < 1e-6)
            return r;
    }
    return -1;
}

QString BreakdownPlot::barLabel(int row) const {
    if (row < 0 || row >= int(m_labels.size()))
        return {};
    return m_labels[size_t(row)] ? m_labels[size_t(row)]->text() : QString();
}

QString BreakdownPlot::footerText() const {
    return m_footer->text();
}

void BreakdownPlot::rebuild() {
    const int n = m_model->rowCount();
    xAxis->setLabel(m_model->spanShares() ? tr("Share of profiled wall clock (%)")
                                          : tr("Share of GPU time (%)"));
    // Every row label a line of its own: with a dozen workloads in a 720 px window under the
    // Messages dock the rows were 10 px apart and their labels ran into each other. The plot
    // asks for a line and a little per row beside its legend, axis and footer; the drill-down
    // below gives way (the splitter).
    const int line = QFontMetrics(yAxis->tickLabelFont()).height();
    setMinimumHeight(std::max(220, n * (line + 2) + 110));
    const bool op = m_operatorSplit;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    std::array<QVector<double>, 4> keys, values, opKeys, opValues;
    QVector<double> restKeys, unsplit, idle, unlinkedKeys, unlinked;
    for (const SegmentLabel& l : m_segmentLabels)
        removeItem(l.text);
    m_segmentLabels.clear();
    m_labels.assign(size_t(n), nullptr);
    std::vector<ProjectWorkload> rows;
    for (int r = 0; r < n; ++r)
        rows.push_back(m_model->workload(r));
    const std::vector<RowLabel> labels = rowLabels(rows);  // tags tell same-name rows apart
    // Rows run top to bottom, keys bottom to top: walk backwards so keys come out sorted.
    for (int row = n - 1; row >= 0; --row) {
        const double key = keyOfRow(row);
        // One label per row, at the middle of its bar pair when the operator split is shown.
        const bool pair = op && m_model->hasOperatorSplit(row);
        ticker->addTick(pair ? key - kSplitOffset : key, toQString(labels[size_t(row)].text()));
        for (Category c : kCategories) {
            keys[size_t(c)] << key;
            values[size_t(c)] << 100.0 * m_model->share(row, c);
        }
        restKeys << key;
        unsplit << 100.0 * m_model->unsplit(row);
        idle << 100.0 * m_model->idle(row);
        if (pair) {
            const double okey = key - 2 * kSplitOffset;
            double linked = 0;
            for (Category c : kCategories) {
                const double v = 100.0 * m_model->operatorShare(row, c);
                opKeys[size_t(c)] << okey;
                opValues[size_t(c)] << v;
                linked += v;
            }
            unlinkedKeys << okey;
            // What no operator claims, up to the bar's busy part (all of it in GPU-time mode;
            // the span less the GPU's idle time on the wall-clock axis).
            unlinked << std::max(0.0, 100.0 * (1.0 - m_model->idle(row)) - linked);
        }
        addBarLabels(row, key);
    }

    const double width = op ? 0.36 : 0.66;
    for (size_t i = 0; i < 4; ++i) {
        m_bars[i]->setWidth(width);
        m_bars[i]->setData(keys[i], values[i], true);
        m_opBars[i]->setWidth(width);
        m_opBars[i]->setData(opKeys[i], opValues[i], true);
    }
    m_unsplit->setWidth(width);
    m_unsplit->setData(restKeys, unsplit, true);
    m_idle->setWidth(width);
    m_idle->setData(restKeys, idle, true);
    m_opUnlinked->setWidth(width);
    m_opUnlinked->setData(unlinkedKeys, unlinked, true);
    updateLegendEntries();

    yAxis->setTicker(ticker);
    yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    updateFooter();
    frameHighlight(width);
    replot(QCustomPlot::rpQueuedReplot);
}

// "GPU idle" only in span mode, "not split by the study" only with a published row.
void BreakdownPlot::updateLegendEntries() {
    m_idle->setVisible(m_model->spanShares());
    if (m_model->spanShares())
        m_idle->addToLegend();
    else
        m_idle->removeFromLegend();
    bool anyPublished = false;
    for (int r = 0; r < m_model->rowCount(); ++r)
        anyPublished = anyPublished || m_model->workload(r).published;
    if (anyPublished)
        m_unsplit->addToLegend();
    else
        m_unsplit->removeFromLegend();
}

// The frame around the clicked segment, whose kernels the drill-down shows.
void BreakdownPlot::frameHighlight(double width) {
    const int row = m_highlightRow;
    m_highlight->setVisible(false);
    if (row < 0 || row >= m_model->rowCount() || !m_model->workload(row).breakdown)
        return;
    const double key = keyOfRow(row);
    double start = 0;
    for (Category c : kCategories) {
        if (c == m_highlightCategory)
            break;
        start += 100.0 * m_model->share(row, c);
    }
    const double end = start + 100.0 * m_model->share(row, m_highlightCategory);
    m_highlight->topLeft->setCoords(start, key + width / 2);
    m_highlight->bottomRight->setCoords(end, key - width / 2);
    m_highlight->setVisible(end > start);
}

// Every category segment gets its share printed on it; placeBarLabels shows those that fit once
// the plot knows its size. The addressable share is also shown when its segment is too narrow:
// after the bar, in the plot's right margin.
void BreakdownPlot::addBarLabels(int row, double key) {
    auto makeText = [this](const QString& text) {
        auto* label = new QCPItemText(this);
        label->setSelectable(false);
        label->setFont(Theme::plotFont(8));
        label->setText(text);
        return label;
    };
    if (m_model->spanUnknown(row)) {
        QCPItemText* label = makeText(tr("published shares of GPU time: no profiled span to draw"));
        label->position->setCoords(0.8, key);
        label->setColor(plotTextColor());
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        m_labels[size_t(row)] = label;
        m_segmentLabels.push_back({label, row, Category::Addressable, 0, 0, key, false});
        return;
    }
    double start = 0;
    for (Category c : kCategories) {
        const double share = 100.0 * m_model->share(row, c);
        if (share > 0 || c == Category::Addressable) {
            QCPItemText* label = makeText(QString::number(share, 'f', 1) + QLatin1Char('%'));
            label->position->setCoords(start + share / 2, key);
            label->setColor(Theme::textOn(Theme::categoryColor(c)));
            label->setPositionAlignment(Qt::AlignCenter);
            // The thin bars of the operator split leave no room for text: hover tells numbers.
            label->setVisible(!m_operatorSplit);
            m_segmentLabels.push_back({label, row, c, start, start + share, key, true});
            if (c == Category::Addressable)
                m_labels[size_t(row)] = label;
        }
        start += share;
    }
}

void BreakdownPlot::placeBarLabels() {
    if (m_operatorSplit)
        return;
    QCPAxis* x = xAxis;
    // Two passes: the margin the outside labels need narrows the bars, which may push another
    // label out of its segment.
    for (int pass = 0; pass < 2; ++pass) {
        double outsideWidth = 0;
        for (const SegmentLabel& l : m_segmentLabels) {
            if (!l.inSegment)
                continue;
            const QString share = QString::number(l.end - l.start, 'f', 1) + QLatin1Char('%');
            const QFontMetricsF tm(l.text->font());
            const double room = std::abs(x->coordToPixel(l.end) - x->coordToPixel(l.start));
            // The ink of the digits, not the font's line height, has to fit in the bar: the
            // line height (descent and leading included) left every bar of a 13-row window
            // without its numbers.
            const bool fits = tm.horizontalAdvance(share) + 4 <= room &&
                              tm.tightBoundingRect(share).height() + 2 <= barPixels();
            if (fits) {
                l.text->setText(share);
                l.text->position->setCoords((l.start + l.end) / 2, l.key);
                l.text->setColor(Theme::textOn(Theme::categoryColor(l.category)));
                l.text->setPositionAlignment(Qt::AlignCenter);
                l.text->setClipToAxisRect(true);
                l.text->setVisible(true);
            } else if (l.category == Category::Addressable) {
                l.text->setText(tr("%1 addr.").arg(share));
                l.text->position->setCoords(x->range().upper, l.key);
                l.text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
                l.text->setPadding(QMargins(3, 0, 0, 0));
                l.text->setColor(plotTextColor());
                l.text->setClipToAxisRect(false);
                l.text->setVisible(true);
                outsideWidth = std::max(outsideWidth, tm.horizontalAdvance(l.text->text()) + 6);
            } else {
                l.text->setVisible(false);
            }
        }
        // At least room for half of the axis's last tick label ("100"), which QCustomPlot does
        // not draw at all when the widget's edge would cut it.
        const double lastTick =
            QFontMetricsF(x->tickLabelFont()).horizontalAdvance(QStringLiteral("100")) / 2 + 4;
        const int margin = int(std::ceil(std::max({outsideWidth, lastTick, 12.0})));
        QCPAxisRect* rect = axisRect();
        if (rect->margins().right() == margin)
            return;
        rect->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
        QMargins m = rect->margins();
        m.setRight(margin);
        rect->setMargins(m);
        plotLayout()->update(QCPLayoutElement::upMargins);
        plotLayout()->update(QCPLayoutElement::upLayout);
    }
}

double BreakdownPlot::barPixels() const {
    const double width = m_operatorSplit ? 0.36 : 0.66;
    return std::abs(yAxis->coordToPixel(width) - yAxis->coordToPixel(0));
}

void BreakdownPlot::updateFooter() {
    QString footer = tr("Rule set: %1 (%2)").arg(m_rulesName, m_rulesHash.left(12));
    if (m_operatorSplit)
        footer +=
            tr(". Upper bar: kernel-name rules; lower, lighter bar: launching ATen operator.");
    m_footer->setText(footer);
}

std::optional<std::pair<int, Category>> BreakdownPlot::segmentAt(const QPointF& pos) const {
    int index = -1;
    auto* bars = qobject_cast<QCPBars*>(plottableAt(pos, false, &index));
    auto cat = std::find(m_bars.begin(), m_bars.end(), bars);
    if (!bars || cat == m_bars.end() || index < 0 || index >= bars->dataCount())
        return std::nullopt;
    const int row = rowOfBarKey(bars->data()->at(index)->key, false);
    if (row < 0)
        return std::nullopt;
    return std::pair{row, Category(cat - m_bars.begin())};
}

QString BreakdownPlot::hoverText(const QPointF& pos) const {
    int index = -1;
    auto* bars = qobject_cast<QCPBars*>(plottableAt(pos, false, &index));
    if (!bars || index < 0 || index >= bars->dataCount())
        return {};
    const double key = bars->data()->at(index)->key;
    const double value = bars->data()->at(index)->value;
    const bool isOp =
        std::find(m_opBars.begin(), m_opBars.end(), bars) != m_opBars.end() || bars == m_opUnlinked;
    const int row = rowOfBarKey(key, isOp);
    if (row < 0 || row >= m_model->rowCount())
        return {};
    QString text = toQString(m_model->workload(row).name) + QLatin1Char('\n');
    auto cat = std::find(m_bars.begin(), m_bars.end(), bars);
    if (cat != m_bars.end()) {
        const Category c = Category(cat - m_bars.begin());
        text += toQString(categoryLabel(c)) + QStringLiteral(": ");
        const double ms = m_model->milliseconds(row, c);
        if (!std::isnan(ms))
            text += tr("%1 ms, ").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
        text += tr("%1% of %2")
                    .arg(value, 0, 'f', 1)
                    .arg(m_model->spanShares() ? tr("wall clock") : tr("GPU time"));
        if (m_model->workload(row).breakdown)
            text += tr("\nclick for its kernels");
    } else if (isOp) {
        text += tr("by operator: %1%").arg(value, 0, 'f', 1);
    } else {
        text += bars->name() + QStringLiteral(": ") + QString::number(value, 'f', 1) + '%';
    }
    return text;
}

FigureTable BreakdownPlot::figureData() const {
    std::vector<ProjectWorkload> rows;
    for (int r = 0; r < m_model->rowCount(); ++r)
        rows.push_back(m_model->workload(r));
    return breakdownFigureTable(rows, m_model->spanShares());
}

}  // namespace reach
