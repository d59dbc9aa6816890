#include "ui/figure/figurestyle.h"

#include <qcustomplot.h>
#include <QFontMetricsF>

#include <algorithm>
#include "ui/figure/figurelabels.h"

namespace reach {

namespace {

QPen thinPen(const QColor& color, double widthPt) {
    QPen pen(color, widthPt);
    pen.setCapStyle(Qt::SquareCap);
    return pen;
}

// Every layout element of the plot, inset layouts (where legends usually sit) included.
QList<QCPLayoutElement*> allElements(QCustomPlot& plot) {
    QList<QCPLayoutElement*> out;
    for (QCPLayoutElement* e : plot.plotLayout()->elements(true)) {
        if (e)
            out << e;
    }
    return out;
}

// QCustomPlot has a setter but no getter for its background brush; a member pointer taken in a
// derived class reads it without touching the plot.
struct BackgroundAccess : QCustomPlot {
    static QBrush brush(const QCustomPlot& plot) {
        return plot.*(&BackgroundAccess::mBackgroundBrush);
    }
};

}  // namespace

QFont FigureStyle::font(const QCustomPlot& plot, double scale) const {
    QFont f(fontFamily);
    const int dpi = plot.logicalDpiY() > 0 ? plot.logicalDpiY() : 96;
    f.setPointSizeF(fontPt * scale * 72.0 / dpi);
    f.setStyleHint(QFont::SansSerif);
    return f;
}

void FigureStyle::apply(QCustomPlot& plot, QSize figurePt) const {
    // Paper: nothing selected, white page, black ink.
    plot.setProperty(kExportingProperty, true);
    plot.deselectAll();
    plot.setBackground(Qt::white);
    plot.setAntialiasedElements(QCP::aeAll);
    const QFont base = font(plot);
    const QFont small = font(plot, 0.9);
    styleAxes(plot, base);
    styleLegendsAndTitles(plot, base, small);
    styleItems(plot, small);
    hideScreenOnlyPlottables(plot);
    if (figurePt.isEmpty())
        return;
    const int available = figurePt.width() - 4;
    wrapLegendRows(plot, available);
    wrapLegendEntries(plot, available);
    fitCategoryAxes(plot, figurePt);
    // Lay the plot out at the figure's size to know how long each axis is, then give numeric
    // axes one tick per ~40 pt so tick labels never run into each other (labelled text axes,
    // the speedup figure's, thin themselves to the axis length: SpacedTextTicker).
    plot.plotLayout()->setOuterRect(QRect(QPoint(0, 0), figurePt));
    plot.plotLayout()->update(QCPLayoutElement::upPreparation);
    plot.plotLayout()->update(QCPLayoutElement::upMargins);
    plot.plotLayout()->update(QCPLayoutElement::upLayout);
    breakLongAxisLabels(plot, base);
    thinNumericTicks(plot);
}

void FigureStyle::styleAxes(QCustomPlot& plot, const QFont& base) const {
    for (QCPAxisRect* rect : plot.axisRects()) {
        rect->setBackground(Qt::NoBrush);
        for (QCPAxis* axis : rect->axes()) {
            axis->setLabelFont(base);
            axis->setTickLabelFont(base);
            axis->setLabelColor(Qt::black);
            axis->setTickLabelColor(Qt::black);
            axis->setBasePen(thinPen(Qt::black, axisLineWidthPt));
            axis->setTickPen(thinPen(Qt::black, axisLineWidthPt));
            axis->setSubTickPen(thinPen(Qt::black, axisLineWidthPt * 0.7));
            QPen grid = thinPen(QColor(0xd9, 0xd9, 0xd9), axisLineWidthPt * 0.6);
            grid.setStyle(Qt::SolidLine);
            axis->grid()->setPen(grid);
            axis->grid()->setZeroLinePen(Qt::NoPen);
            axis->grid()->setSubGridVisible(false);
        }
    }
}

void FigureStyle::styleLegendsAndTitles(QCustomPlot& plot, const QFont& base, const QFont& small) {
    for (QCPLayoutElement* e : allElements(plot)) {
        if (auto* legend = qobject_cast<QCPLegend*>(e)) {
            legend->setFont(small);
            legend->setTextColor(Qt::black);
            // Paper legends have no frame; one drawn over data keeps a white ground.
            legend->setBrush(legend->layout() == plot.plotLayout()
                                 ? QBrush(Qt::NoBrush)
                                 : QBrush(QColor(255, 255, 255, 230)));
            legend->setBorderPen(Qt::NoPen);
            for (int i = 0; i < legend->itemCount(); ++i) {
                if (QCPAbstractLegendItem* item = legend->item(i)) {
                    item->setFont(small);
                    item->setTextColor(Qt::black);
                }
            }
        } else if (auto* text = qobject_cast<QCPTextElement*>(e)) {
            QFont f = base;
            f.setBold(text->font().bold());
            text->setFont(f);
            text->setTextColor(Qt::black);
        }
    }
}

void FigureStyle::styleItems(QCustomPlot& plot, const QFont& small) {
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(plot.item(i))) {
            // A text filled with the screen's background (so no line runs through it) is
            // filled with the page's.
            if (text->brush().style() != Qt::NoBrush)
                text->setBrush(Qt::white);
            QFont f = small;
            f.setBold(text->font().bold() && !text->property(kScreenOnlyEmphasis).toBool());
            text->setFont(f);
        }
        if (plot.item(i)->property(kScreenOnlyProperty).toBool())
            plot.item(i)->setVisible(false);
    }
}

void FigureStyle::hideScreenOnlyPlottables(QCustomPlot& plot) {
    for (int i = 0; i < plot.plottableCount(); ++i) {
        if (plot.plottable(i)->property(kScreenOnlyProperty).toBool()) {
            plot.plottable(i)->setVisible(false);
        }
    }
}

void FigureStyle::wrapLegendRows(QCustomPlot& plot, int available) {
    // A legend row wider than the page is wrapped into more lines.
    for (QCPLayoutElement* e : allElements(plot)) {
        auto* legend = qobject_cast<QCPLegend*>(e);
        if (!legend || !legend->visible() || legend->layout() != plot.plotLayout() ||
            legend->fillOrder() != QCPLayoutGrid::foColumnsFirst) {
            continue;
        }
        legend->setIconSize(12, 7);
        legend->setIconTextPadding(3);
        int wrap = legend->wrap() > 0 ? legend->wrap() : legend->elementCount();
        while (wrap > 1 && legend->minimumOuterSizeHint().width() > available) {
            legend->setWrap(--wrap);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
        }
    }
}

void FigureStyle::wrapLegendEntries(QCustomPlot& plot, int available) {
    // An entry still wider than the page in one column is broken into lines at spaces (the
    // sample's speedup figure at 3.5 in lost the end of "..., median 2.018x").
    for (QCPLayoutElement* e : allElements(plot)) {
        auto* legend = qobject_cast<QCPLegend*>(e);
        if (!legend || !legend->visible())
            continue;
        const QMargins lm = legend->margins();
        for (int i = 0; i < legend->itemCount(); ++i) {
            auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
            if (!item || !item->plottable())
                continue;
            const QFontMetricsF fm(item->font());
            const QString name = item->plottable()->name();
            const double room = available - lm.left() - lm.right() - item->margins().left() -
                                item->margins().right() - legend->iconSize().width() -
                                legend->iconTextPadding() - 2;
            double widest = 0;
            for (const QString& line : name.split(QLatin1Char('\n')))
                widest = std::max(widest, fm.horizontalAdvance(line));
            if (room > 0 && widest > room)
                item->plottable()->setName(wrapToWidth(name, fm, room));
        }
    }
}

void FigureStyle::fitCategoryAxes(QCustomPlot& plot, QSize figurePt) {
    // Category labels (text tickers) on a vertical axis may take at most 40 % of the figure's
    // width and, each, its share of three quarters of the height: long workload names otherwise
    // squeezed a 3.5 in figure's bars to a sliver and pushed the value labels and the axis title
    // off the page. fitCategoryLabels keeps each row's hardware tag and never makes two rows
    // read alike. The CSV beside the figure keeps the full labels (PlotStyleGuard puts them
    // back before it is written).
    const double labelRoom = figurePt.width() * 0.4;
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            auto text = axis->ticker().dynamicCast<QCPAxisTickerText>();
            if (!text || !axis->visible() || axis->orientation() != Qt::Vertical)
                continue;
            const QFontMetricsF tm(axis->tickLabelFont());
            const qsizetype n = std::max<qsizetype>(1, text->ticks().size());
            // A plot with a legend above its bars and a caption of lines below (the headroom
            // figure) keeps each label on one line: its rows get less than their page share.
            // Once the page is laid out (kPageLayoutProperty), the rows' real pitch, where a row
            // within a tenth of a line of holding one more line still holds it (the study's
            // table at 3.5 in: 1.99 lines a row, two-line names that pdftotext finds apart).
            const bool laidOut = plot.property(kPageLayoutProperty).toBool() && rect->height() > 0;
            const double rowsHeight = laidOut ? rect->height() : figurePt.height() * 0.75;
            const double lines = rowsHeight / double(n) / tm.lineSpacing() + (laidOut ? 0.1 : 0);
            const qsizetype capacity = plot.property(kOneLineLabelsProperty).toBool()
                                           ? 1
                                           : std::max<qsizetype>(1, qsizetype(lines));
            text->ticks() = fitCategoryLabels(text->ticks(), tm, labelRoom, capacity);
        }
    }
}

void FigureStyle::breakLongAxisLabels(QCustomPlot& plot, const QFont& base) {
    // An axis label longer than its axis is broken into two lines at the space nearest its middle.
    const QFontMetricsF metrics(base);
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            const QString label = axis->label();
            const int room = axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
            if (label.contains('\n') || metrics.horizontalAdvance(label) <= room * 0.95)
                continue;
            int best = -1;
            for (int i = 0; i < label.size(); ++i) {
                if (label[i] == ' ' && (best < 0 || std::abs(i - label.size() / 2) <
                                                        std::abs(best - label.size() / 2))) {
                    best = i;
                }
            }
            if (best > 0)
                axis->setLabel(label.left(best) + '\n' + label.mid(best + 1));
        }
    }
}

void FigureStyle::thinNumericTicks(QCustomPlot& plot) {
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            if (!axis->visible() || axis->ticker().dynamicCast<QCPAxisTickerText>())
                continue;
            const bool horizontal = axis->orientation() == Qt::Horizontal;
            const int length = horizontal ? rect->width() : rect->height();
            const int wanted = std::clamp(length / (horizontal ? 40 : 25), 2, 8);
            if (axis->ticker()->tickCount() > wanted)
                axis->ticker()->setTickCount(wanted);
        }
    }
}

PlotStyleGuard::PlotStyleGuard(QCustomPlot& plot)
    : m_plot(plot), m_background(BackgroundAccess::brush(plot)) {
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            m_axes.push_back({a->labelFont(), a->tickLabelFont(), a->labelColor(),
                              a->tickLabelColor(), a->basePen(), a->tickPen(), a->subTickPen(),
                              a->grid()->pen(), a->grid()->subGridPen(),
                              a->grid()->subGridVisible()});
        }
    }
    if (plot.legend) {
        m_legendFont = plot.legend->font();
        m_legendBorder = plot.legend->borderPen();
        m_legendBrush = plot.legend->brush();
    }
    for (QCPLayoutElement* e : allElements(plot)) {
        if (auto* text = qobject_cast<QCPTextElement*>(e)) {
            m_texts.push_back({text->font(), text->textColor(), QBrush()});
        }
    }
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(plot.item(i))) {
            m_texts.push_back({text->font(), text->color(), text->brush()});
        }
        if (plot.item(i)->visible() && plot.item(i)->property(kScreenOnlyProperty).toBool()) {
            m_hidden.push_back(plot.item(i));
        }
    }
    for (int i = 0; i < plot.plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot.plottable(i);
        if (p->visible() && p->property(kScreenOnlyProperty).toBool())
            m_hidden.push_back(p);
        m_names.push_back({p, p->name()});
    }
    for (QCPLayoutElement* e : allElements(plot)) {
        if (auto* legend = qobject_cast<QCPLegend*>(e)) {
            m_legends.push_back(
                {legend, legend->wrap(), legend->iconSize(), legend->iconTextPadding()});
        }
    }
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            m_tickCounts.push_back({a, a->ticker()->tickCount()});
            if (auto text = a->ticker().dynamicCast<QCPAxisTickerText>())
                m_tickTexts.push_back({text, text->ticks()});
        }
    }
}

PlotStyleGuard::~PlotStyleGuard() {
    m_plot.setProperty(kExportingProperty, false);
    m_plot.setBackground(m_background);
    size_t ai = 0;
    for (QCPAxisRect* rect : m_plot.axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            if (ai >= m_axes.size())
                break;
            const AxisState& s = m_axes[ai++];
            a->setLabelFont(s.labelFont);
            a->setTickLabelFont(s.tickLabelFont);
            a->setLabelColor(s.labelColor);
            a->setTickLabelColor(s.tickLabelColor);
            a->setBasePen(s.basePen);
            a->setTickPen(s.tickPen);
            a->setSubTickPen(s.subTickPen);
            a->grid()->setPen(s.gridPen);
            a->grid()->setSubGridPen(s.subGridPen);
            a->grid()->setSubGridVisible(s.subGridVisible);
        }
    }
    if (m_plot.legend) {
        m_plot.legend->setFont(m_legendFont);
        m_plot.legend->setBorderPen(m_legendBorder);
        m_plot.legend->setBrush(m_legendBrush);
        for (int i = 0; i < m_plot.legend->itemCount(); ++i) {
            if (QCPAbstractLegendItem* item = m_plot.legend->item(i))
                item->setFont(m_legendFont);
        }
    }
    size_t ti = 0;
    for (QCPLayoutElement* e : allElements(m_plot)) {
        if (auto* text = qobject_cast<QCPTextElement*>(e); text && ti < m_texts.size()) {
            text->setFont(m_texts[ti].font);
            text->setTextColor(m_texts[ti].color);
            ++ti;
        }
    }
    for (int i = 0; i < m_plot.itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(m_plot.item(i)); text && ti < m_texts.size()) {
            text->setFont(m_texts[ti].font);
            text->setBrush(m_texts[ti].brush);
            ++ti;
        }
    }
    for (QCPLayerable* l : m_hidden)
        l->setVisible(true);
    for (auto& [plottable, name] : m_names)
        plottable->setName(name);
    for (const LegendState& l : m_legends) {
        l.legend->setIconSize(l.iconSize);
        l.legend->setIconTextPadding(l.iconTextPadding);
        if (l.legend->wrap() != l.wrap) {
            l.legend->setWrap(l.wrap);
            l.legend->setFillOrder(l.legend->fillOrder(), true);
        }
    }
    for (auto [axis, count] : m_tickCounts)
        axis->ticker()->setTickCount(count);
    for (auto& [ticker, ticks] : m_tickTexts)
        ticker->ticks() = ticks;
    m_plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace reach
