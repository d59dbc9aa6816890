#pragma once

#include <QString>
#include <optional>
#include <utility>
#include <vector>

#include "core/project/figuredata.h"
#include "core/project/project.h"

#include <qcustomplot.h>

namespace reach {

class ProjectionModel;

// The projection's bars: per workload, the study's projected gain A*w*(1-1/m) for the model's
// (w, m), its value printed after the bar (of GPU time, of the wall clock and the GPU's busy
// share), the speed-of-light lines across it (core/headroom), the legend above and the rule
// set's footer below. It paints a ProjectionModel it does not own and knows no GUI session: the
// projection view adds the sliders, the heat map and the clicks; `reach-cli figure projection`
// paints it alone. A slider move calls updateBars() only: the labels are made per change of the
// rows (setRows).
class ProjectionBarPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit ProjectionBarPlot(const ProjectionModel* model, QWidget* parent = nullptr);

    // After the model's rows changed: the short labels, the bound lines, the footer, the bars.
    void setRows();
    // After the model's (w, m) changed: the bars and their values only.
    void updateBars();
    void setRuleSet(const QString& name, const QString& hash);
    // The row whose value is bold on screen (the heat map's); -1 for none.
    void setEmphasizedRow(int row);
    // While a slider is held the gain axis only grows: the bars do not rescale under the cursor.
    void setAxisHeld(bool held);

    QCPBars* gainBars() const { return m_gainBars; }
    // The exact projection's bars (rows with one only), drawn inside the study's, with their
    // bootstrap interval as error bars (ProjectionModel::exact).
    QCPBars* exactBars() const { return m_exact.bars; }
    QCPErrorBars* exactErrors() const { return m_exact.errors; }
    // What an integration run measured (rows with one only): a thinner bar over the exact one,
    // with the range over its pairs of runs (ProjectionModel::measured).
    QCPBars* measuredBars() const { return m_measured.bars; }
    // The same for a document Reach did not measure here: drawn apart, named a claim.
    QCPBars* claimedBars() const { return m_claimed.bars; }
    QCPErrorBars* measuredErrors() const { return m_measured.errors; }
    QString valueLabel(int row) const;  // the text printed at a workload's bar
    // Where that text is painted (widget pixels); empty when it is not (rows too close).
    QRectF valueLabelRect(int row) const;
    // The speed-of-light bound drawn across a workload's bar (percent of GPU time, as the bar):
    // core/headroom's headroom share of the addressable kernels, or of all kernels; nullopt when
    // the row has no estimate (nothing is drawn then).
    std::optional<double> boundPercent(int row, bool addressableOnly) const;
    // The legend entries of the two bound lines (no data: the lines are items).
    QCPGraph* boundLegend(bool addressableOnly) const {
        return addressableOnly ? m_boundLegend : m_boundAllLegend;
    }
    QString footerText() const;
    // The row of the bar at `pos` (widget pixels); -1 away from the bars.
    int rowAt(const QPointF& pos) const;
    // The hover text of a row: its whole name and device, and every value of its label.
    QString hoverText(int row) const;
    // What the figure plots (core/project/figuredata.h): its CSV, with the bound lines' numbers.
    FigureTable figureData() const;

public slots:
    void refreshStyle();

private:
    void updateBounds();
    void updateFooter();
    void fitValueLabels();
    void fitFooter(double width);
    double farthestBound() const;
    double labelAnchor(int row) const;
    std::vector<ProjectWorkload> rows() const;

    const ProjectionModel* m_model;
    QString m_rulesName, m_rulesHash;
    int m_emphasized = -1;
    bool m_axisHeld = false;
    double m_baseUpper = 1;  // the gain axis's end before the value labels ask for room
    // Every how many rows a name is printed on the axis: 1 unless rows are closer than a line
    // of the axis's font (a hundred workloads on a screen), where every name would overprint
    // its neighbours; the hover names every bar.
    int m_tickStride = 1;
    QCPBars* m_gainBars = nullptr;
    // A narrow bar inside a row's study bar with its range as error bars (the exact projection,
    // what an integration run measured): drawn only for the rows that have one.
    struct RangeBars {
        QCPBars* bars = nullptr;
        QCPErrorBars* errors = nullptr;
    };
    struct RangePoint {
        double key, value, low, high;
    };
    RangeBars makeRangeBars(double width, const QColor& color, const QString& name);
    void setRangeBars(const RangeBars& r, const std::vector<RangePoint>& points);
    RangeBars m_exact, m_measured, m_claimed;
    QCPTextElement* m_footer = nullptr;
    QStringList m_footerParts;  // joined on one line where the plot is wide enough (fitFooter)
    std::vector<QCPItemText*> m_valueLabels;
    std::vector<RowLabel> m_labels;  // per row (core's rowLabels), made when the rows change
    // Per row: the speed-of-light lines (addressable, all kernels; null without an estimate).
    std::vector<std::pair<QCPItemLine*, QCPItemLine*>> m_boundLines;
    QCPGraph* m_boundLegend = nullptr;
    QCPGraph* m_boundAllLegend = nullptr;
};

}  // namespace reach
