#include "ui/plots/plotrows.h"

#include <qcustomplot.h>

#include "ui/theme.h"

namespace reach {

void addLegendRowAbove(QCustomPlot* plot, int wrap) {
    plot->legend->setVisible(true);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(wrap);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);  // as tall as its entries, no more
}

QColor footerTextColor() {
    return Theme::mode() == Theme::Mode::Dark ? QColor(0xb0, 0xb0, 0xb0) : QColor(0x60, 0x60, 0x60);
}

}  // namespace reach
