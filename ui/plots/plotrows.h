#pragma once

#include <QColor>
#include <QString>

class QCPBars;
class QCPTextElement;
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
// The colour of text and lines drawn on a plot's background (labels, bound lines, outlines).
QColor plotTextColor();

// Horizontal bars (keys on the y axis) of the views' style: white outline, widths in plot
// coordinates, not selectable.
QCPBars* addHorizontalBars(QCustomPlot* plot, const QString& name, const QColor& color);

// A caption wrapped to the plot's width once it is laid out (a single-column figure's page is
// narrow); a changed line count lays the plot out again. Call from afterLayout.
void wrapCaption(QCustomPlot* plot, QCPTextElement* caption, const QString& text);

}  // namespace reach
