#pragma once

#include <QColor>

class QCustomPlot;

namespace reach {

// The rows every view's plot shares: the legend in a row of its own above the axes, its entries
// filled across and `wrap` to a row (the breakdown, projection, roofline and headroom plots).
void addLegendRowAbove(QCustomPlot* plot, int wrap);

// The colour of the small text under a plot (rule set, GPU row, what is not plotted) in the
// current theme.
QColor footerTextColor();

}  // namespace reach
