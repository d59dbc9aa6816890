#pragma once

#include "core/project/figuredata.h"

#include <QPoint>
#include <QWidget>
#include <optional>
#include <vector>

#include "ui/models/projectionmodel.h"
#include "ui/plots/projectionbarplot.h"
#include "ui/plots/projectionheatplot.h"

class QComboBox;
class QCPBars;
class QCPColorMap;
class QCPGraph;
class QCPItemLine;
class QCustomPlot;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSlider;
class QToolButton;

namespace reach {

class Session;
struct EvaluationSet;

// What-if projection: win rate and median speedup (sliders + spin boxes, presets) -> projected
// gain per workload (the bars of ui/plots/projectionbarplot.h) and, for one workload, a heat map
// of the gain over (win rate, median) with the current point marked (ProjectionHeatPlot). Under
// the plots, one line says where the current point came from; the formula's assumptions and the
// idle-GPU warnings are in a panel the user opens (its height never changes with a slider, so
// the plots keep theirs at 1280x720). Slider moves touch only the bars and the marker (on its
// own buffered layer).
class ProjectionView : public QWidget {
    Q_OBJECT
public:
    explicit ProjectionView(Session* session, QWidget* parent = nullptr);

    ProjectionModel* model() const { return m_model; }
    ProjectionBarPlot* barPlot() const { return m_bars; }
    ProjectionHeatPlot* heatPlot() const { return m_heat; }
    QCPBars* gainBars() const;
    QCPColorMap* heatMap() const { return m_heat->colorMap(); }
    QCPGraph* marker() const { return m_heat->marker(); }
    QSlider* winRateSlider() const { return m_winSlider; }
    QSlider* medianSlider() const { return m_medianSlider; }
    QString valueLabel(int row) const;  // the text printed at a workload's bar
    // The speed-of-light bound drawn across a workload's bar (percent of GPU time, as the bar):
    // core/headroom's headroom share of the addressable kernels, or of all kernels; nullopt when
    // the row has no estimate (nothing is drawn then).
    std::optional<double> boundPercent(int row, bool addressableOnly) const;
    // The legend entries of the two bound lines (no data: the lines are items).
    QCPGraph* boundLegend(bool addressableOnly) const;
    QString footerText() const;  // the caption under the bars (the rule set)
    // The heat map under the mouse at `pos` (heat plot pixels): its tooltip text (empty outside
    // the map), and a click there, which sets the sliders to that point.
    QString heatTipText(const QPoint& pos) const;
    bool pickFromHeatMap(const QPoint& pos);
    int heatRow() const { return m_heat->row(); }

    double winRate() const { return m_model->winRate(); }
    double medianSpeedup() const { return m_model->medianSpeedup(); }
    void setParameters(double winRate, double medianSpeedup);
    void setHeatRow(int row);
    // What the bar figure plots (core/project/figuredata.h): its CSV.
    FigureTable figureData() const;
    // Presets by index: 0 KernelBench L1 frontier, 1 DLRM-Bench, 2 the selected evaluation set.
    bool applyPreset(int preset);
    void setSelectedEvaluation(int index);  // index into Session::evaluations(), -1 for none

    // Exact projection > "From its benchmark...": workload `row`'s exact projection from its own
    // benchmark folder and verify results (core exactProjectionOf, as reach-cli project
    // --benchmark), drawn beside its bar; false with the one-line reason when the inputs are not
    // usable.
    // `warnings`, when given, receives the problems whose runs were all in another precision than
    // their call (core ExactProjectionReport::otherPrecision): the GUI says why they stay at
    // their baseline.
    bool attachBenchmark(int row, const QString& dir, const QStringList& records,
                         QString* error = nullptr, QStringList* warnings = nullptr);
    // "Measured: an integration run...": a reach-cli integrate document (core
    // readIntegrationSummary), drawn beside the row of the profile its benchmark was made from;
    // false with the one-line reason when it is unreadable or belongs to no loaded profile.
    bool attachIntegration(const QString& document, QString* error = nullptr);

    // Median slider position <-> speedup: log scale from 1x (0) to 10x (kSliderSteps).
    static constexpr int kSliderSteps = 1000;
    static double medianFromSlider(int position);
    static int sliderFromMedian(double median);

public slots:
    void refreshStyle();

private:
    QFormLayout* createControls();
    void createLayout(QFormLayout* form);
    void connectControls();
    void updateFooter();
    void showHeatRow(int row);  // setHeatRow, even when `row` is the row shown
    void showHeatTip(const QPoint& pos, const QPoint& global);
    void setByHand(double winRate, double medianSpeedup);
    void onWorkloadsChanged();
    void onExactProjection();
    void onIntegrationRun();
    QString idleWarnings() const;
    void syncControls();

    Session* m_session;
    ProjectionModel* m_model;
    QSlider* m_winSlider;
    QDoubleSpinBox* m_winSpin;
    QSlider* m_medianSlider;
    QDoubleSpinBox* m_medianSpin;
    QComboBox* m_presets;
    QComboBox* m_heatWorkload;
    QLabel* m_currentPoint;  // one line: w, m, where they came from, how many idle GPUs
    QToolButton* m_details;  // opens and closes m_assumptions
    QLabel* m_assumptions;   // the formula's assumptions, the bound lines, the idle warnings
    // Where the current (w, m) came from, printed with the assumptions under the plot.
    QString m_source = QStringLiteral("the DLRM-Bench summary, 5/12 (0.417), 1.552x (published)");
    ProjectionBarPlot* m_bars;
    ProjectionHeatPlot* m_heat;
    int m_selectedEvaluation = -1;
};

}  // namespace reach
