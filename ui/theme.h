#pragma once

#include <QColor>
#include <QFont>
#include <QString>

#include "core/base/category.h"

class QApplication;
class QCustomPlot;

namespace reach {

// Colours and plot styling shared by every view, so the same category has the same colour in
// every plot, table and exported figure. Category colours come from the Okabe-Ito palette, which
// stays distinguishable under the common colour-vision deficiencies and in greyscale print.
class Theme {
public:
    enum class Mode { Light, Dark };

    static QColor categoryColor(Category c);
    // Share of a bar that the study did not split (published rows give only two categories).
    static QColor unsplitColor();
    // Text colour that stays readable on top of a filled category bar: black or white,
    // whichever has the higher WCAG 2 contrast ratio with the fill (every category colour
    // reaches 4.5:1, the ratio WCAG asks of small text, with one of them).
    static QColor textOn(const QColor& fill);
    // WCAG 2 contrast ratio of two colours, 1 (same luminance) to 21 (black on white).
    static double contrastRatio(const QColor& a, const QColor& b);
    // Okabe-Ito, in order; for series that are not categories (evaluation sets, workloads).
    static QColor seriesColor(int index);

    static Mode mode();
    // Switches the application palette (Fusion style) between light and dark.
    static void apply(QApplication& app, Mode mode);

    // Paper-like plot style: white (or dark) background, thin axes, no grid clutter, one font.
    static void stylePlot(QCustomPlot* plot);
    // A plot's background in the current mode (what stylePlot paints): the fill behind a text
    // that lines must not run through.
    static QColor plotBackground();
    static QFont plotFont(int pointSize = 9);

private:
    static Mode s_mode;
};

}  // namespace reach
