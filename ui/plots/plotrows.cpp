#include "ui/plots/plotrows.h"

#include <qcustomplot.h>

#include <algorithm>

#include "ui/figure/figurelabels.h"
#include "ui/theme.h"

namespace reach {

namespace {

// The most entries a row of the legend holds within the plot's width, up to `most`: a legend
// of three entries in a row ran past a 600 px plot and cut every entry's end.
int legendColumnsThatFit(QCPLegend* legend, double width, int most) {
    QVector<double> widths;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (QCPAbstractLegendItem* item = legend->item(i))
            widths << item->minimumOuterSizeHint().width();
    }
    const QMargins m = legend->margins();
    for (int columns = std::max(1, most); columns > 1; --columns) {
        QVector<double> column(columns, 0.0);
        for (int i = 0; i < widths.size(); ++i)
            column[i % columns] = std::max(column[i % columns], widths[i]);
        double total = m.left() + m.right() + legend->columnSpacing() * (columns - 1);
        for (double c : column)
            total += c;
        if (total <= width)
            return columns;
    }
    return 1;
}

}  // namespace

void addLegendRowAbove(QCustomPlot* plot, int wrap) {
    plot->legend->setVisible(true);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(wrap);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);  // as tall as its entries, no more
    // Once the plot knows its width (on screen, or a figure's page): fewer entries to a row when
    // `wrap` of them do not fit it.
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot, wrap] {
        QCPLegend* legend = plot->legend;
        const double width = plot->plotLayout()->outerRect().width() - 4;
        if (width <= 0)
            return;
        const int columns = legendColumnsThatFit(legend, width, wrap);
        if (columns == legend->wrap())
            return;
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // re-fills the entries
        plot->plotLayout()->update(QCPLayoutElement::upPreparation);
        plot->plotLayout()->update(QCPLayoutElement::upMargins);
        plot->plotLayout()->update(QCPLayoutElement::upLayout);
    });
}

QColor footerTextColor() {
    return Theme::mode() == Theme::Mode::Dark ? QColor(0xb0, 0xb0, 0xb0) : QColor(0x60, 0x60, 0x60);
}

QColor plotTextColor() {
    return Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
}

QCPBars* addHorizontalBars(QCustomPlot* plot, const QString& name, const QColor& color) {
    auto* bars = new QCPBars(plot->yAxis, plot->xAxis);
    bars->setName(name);
    bars->setPen(QPen(Qt::white, 0.8));
    bars->setBrush(color);
    bars->setWidthType(QCPBars::wtPlotCoords);
    bars->setSelectable(QCP::stNone);
    return bars;
}

void wrapCaption(QCustomPlot* plot, QCPTextElement* caption, const QString& text) {
    const double width = plot->plotLayout()->outerRect().width() * 0.96;
    if (width <= 0)
        return;
    const QString wrapped = wrapToWidth(text, QFontMetricsF(caption->font()), width);
    if (wrapped == caption->text())
        return;
    caption->setText(wrapped);
    plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    plot->plotLayout()->update(QCPLayoutElement::upMargins);
    plot->plotLayout()->update(QCPLayoutElement::upLayout);
}

}  // namespace reach
