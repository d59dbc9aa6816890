#pragma once

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QMap>
#include <QPen>
#include <QSharedPointer>
#include <QSize>
#include <QString>
#include <vector>

class QCustomPlot;
class QCPAbstractPlottable;
class QCPAxis;
class QCPAxisTickerText;
class QCPLayerable;
class QCPLegend;

namespace reach {

// The paper style of an exported figure: white background, black axes, one font family at one
// size in points, thin non-cosmetic lines. Exported figures are laid out in a coordinate system
// where one plot unit is one PostScript point (1/72 in), so the PDF page, the SVG viewBox and the
// PNG scale all follow from the size in inches and fonts come out at their nominal point size.
struct FigureStyle {
    QString fontFamily = QStringLiteral("DejaVu Sans");
    double fontPt = 8.0;
    double axisLineWidthPt = 0.6;

    // A font of fontPt points in the figure's point-based coordinates: QCustomPlot measures text
    // with the screen's logical dpi, so the nominal size is rescaled by 72 / dpi.
    QFont font(const QCustomPlot& plot, double scale = 1.0) const;

    // Applies the style to every axis, legend, title and text item; deselects everything. With
    // the figure's size (points), a legend row that would not fit is wrapped into more lines and
    // numeric axes get as many ticks as their length holds without labels colliding.
    void apply(QCustomPlot& plot, QSize figurePt = {}) const;

private:
    // Paper ink on whatever the plot has, at any size.
    void styleAxes(QCustomPlot& plot, const QFont& base) const;
    static void styleLegendsAndTitles(QCustomPlot& plot, const QFont& base, const QFont& small);
    static void styleItems(QCustomPlot& plot, const QFont& small);
    static void hideScreenOnlyPlottables(QCustomPlot& plot);
    // What the figure's size (points; `available` is the width a legend may take) asks for.
    static void wrapLegendRows(QCustomPlot& plot, int available);
    static void wrapLegendEntries(QCustomPlot& plot, int available);
    static void fitCategoryAxes(QCustomPlot& plot, QSize figurePt);
    // After the plot is laid out at the figure's size: the axes' lengths are known.
    static void breakLongAxisLabels(QCustomPlot& plot, const QFont& base);
    static void thinNumericTicks(QCustomPlot& plot);
};

// A layerable (item, plottable) with this dynamic property set to true is drawn on screen only
// (hover boxes, selection outlines) and hidden in exported figures.
inline constexpr const char* kScreenOnlyProperty = "reach_screen_only";

// Set on a plot (true) while FigureStyle is applied to it for an export: views that fit their
// labels to the plot's size cut them only for a figure's page, never on screen.
inline constexpr const char* kExportingProperty = "reach_exporting";

// Set on a plot (true) whose category labels stay on one line in a figure: a legend and a
// caption of several lines leave its rows less than their share of the page.
inline constexpr const char* kOneLineLabelsProperty = "reach_one_line_labels";
// Set by the figure exporter while the plot's axis rects hold the page's layout (after a dry run
// of the painting): category labels then get the lines their rows' pitch has, not a share of
// the page's height (a projection with a legend above and a caption below has less).
inline constexpr const char* kPageLayoutProperty = "reach_page_layout";
// A text item with this property set to true is bold on screen only (the projection's bold
// value marks the heat map's workload, which an exported bar chart has not).
inline constexpr const char* kScreenOnlyEmphasis = "reach_screen_only_emphasis";

// Remembers what FigureStyle::apply changes on a live plot and puts it back when destroyed, so
// exporting from the GUI does not leave the on-screen view in paper style.
class PlotStyleGuard {
public:
    explicit PlotStyleGuard(QCustomPlot& plot);
    ~PlotStyleGuard();
    PlotStyleGuard(const PlotStyleGuard&) = delete;
    PlotStyleGuard& operator=(const PlotStyleGuard&) = delete;

private:
    struct AxisState {
        QFont labelFont, tickLabelFont;
        QColor labelColor, tickLabelColor;
        QPen basePen, tickPen, subTickPen, gridPen, subGridPen;
        bool subGridVisible = false;
    };
    struct TextState {
        QFont font;
        QColor color;
        QBrush brush;  // a QCPItemText's fill (the screen's background behind a value)
    };
    QCustomPlot& m_plot;
    QBrush m_background;
    std::vector<AxisState> m_axes;
    QFont m_legendFont;
    QPen m_legendBorder;
    QBrush m_legendBrush;
    std::vector<TextState> m_texts;  // QCPTextElement in layout order, then QCPItemText
    struct LegendState {
        QCPLegend* legend;
        int wrap;
        QSize iconSize;
        int iconTextPadding;
    };
    std::vector<LegendState> m_legends;
    std::vector<std::pair<QCPAxis*, int>> m_tickCounts;
    // Category labels, which apply() may elide or cut to their first line.
    std::vector<std::pair<QSharedPointer<QCPAxisTickerText>, QMap<double, QString>>> m_tickTexts;
    std::vector<std::pair<QCPAxis*, QString>> m_labels;
    std::vector<QCPLayerable*> m_hidden;  // screen-only items hidden for the export
    std::vector<std::pair<QCPAbstractPlottable*, QString>> m_names;  // legend entries wrapped
};

}  // namespace reach
