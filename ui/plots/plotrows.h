#pragma once

#include <QColor>

class QCustomPlot;

namespace reach {

// The rows every view's plot shares: the legend in a row of its own above the axes, its entries
// filled across and `wrap` to a row (the breakdown, projection, roofline and headroom plots).
void addLegendRowAbove(QCustomPlot* plot, int wrap);

// The least width a view's plot is given. QCustomPlot asks for room for its whole axis labels
// (a dozen long workload names asked for 650 px, and the window grew past a 1280 px screen);
// narrower than that, a label is cut instead, and the window still fits the screen.
inline constexpr int kPlotMinimumWidth = 240;

// The colour of the small text under a plot (rule set, GPU row, what is not plotted) in the
// current theme.
QColor footerTextColor();

}  // namespace reach
