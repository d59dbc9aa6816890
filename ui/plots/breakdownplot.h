#pragma once

#include <QString>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"

#include <qcustomplot.h>

namespace reach {

class BreakdownModel;

// The breakdown's stacked bars: one per workload (its four categories in fixed colours, then
// the study's unsplit part and, over the wall clock, the idle time), the lighter operator-split
// bar beside it, each segment's share printed on it where it fits (the addressable one after
// the bar where not), the legend above and the rule set's footer below. It paints the rows of a
// BreakdownModel it does not own and knows nothing of a GUI session: the breakdown view adds
// the clicks, the hover and the drill-down; `reach-cli figure breakdown` paints it alone.
class BreakdownPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit BreakdownPlot(const BreakdownModel* model, QWidget* parent = nullptr);

    // The rule set the footer names (its name and the first 12 digits of its hash).
    void setRuleSet(const QString& name, const QString& hash);
    void setOperatorSplit(bool on);
    bool operatorSplit() const { return m_operatorSplit; }
    // The frame around one segment (the drill-down's); row -1: none. Screen only.
    void setHighlight(int row, Category category);
    // Re-reads the model (after its rows or its share basis changed) and re-plots.
    void rebuild();

    QCPBars* bars(Category c) const { return m_bars[size_t(c)]; }
    QCPBars* operatorBars(Category c) const { return m_opBars[size_t(c)]; }
    // Text printed on the bar of `row` (the addressable share).
    QString barLabel(int row) const;
    // The caption under the plot (the rule set's name and hash, what the bars mean).
    QString footerText() const;
    // Plot coordinate of a row's name-split bar (rows run top to bottom).
    double keyOfRow(int row) const;
    // Row of a bar at `key` (name-split or operator-split bar); -1 when none.
    int rowOfBarKey(double key, bool operatorBar) const;
    // The category segment of a name-split bar under `pos` (widget pixels), if any.
    std::optional<std::pair<int, Category>> segmentAt(const QPointF& pos) const;
    // What the hover tooltip says at `pos`: the row's whole name, the segment's time and share;
    // empty away from the bars.
    QString hoverText(const QPointF& pos) const;
    // What the figure plots (core/project/figuredata.h): its CSV.
    FigureTable figureData() const;

public slots:
    void refreshStyle();

private:
    void updateLegendEntries();
    void frameHighlight(double width);
    void addBarLabels(int row, double key);
    void placeBarLabels();
    double barPixels() const;  // a name-rule bar's thickness on screen
    void updateFooter();

    const BreakdownModel* m_model;
    bool m_operatorSplit = false;
    QString m_rulesName, m_rulesHash;
    std::array<QCPBars*, 4> m_bars{};
    std::array<QCPBars*, 4> m_opBars{};
    QCPBars* m_unsplit = nullptr;
    QCPBars* m_idle = nullptr;
    QCPBars* m_opUnlinked = nullptr;
    QCPItemRect* m_highlight = nullptr;
    QCPTextElement* m_footer = nullptr;
    int m_highlightRow = -1;
    Category m_highlightCategory = Category::Addressable;
    // A share printed on a bar: in its segment [start, end] when it fits there; the addressable
    // one after the bar when not. inSegment false: a sentence (a row with nothing to draw).
    struct SegmentLabel {
        QCPItemText* text;
        int row;
        Category category;
        double start, end, key;
        bool inSegment;
    };
    std::vector<SegmentLabel> m_segmentLabels;
    std::vector<QCPItemText*> m_labels;  // per row: its addressable share (or its sentence)
};

}  // namespace reach
