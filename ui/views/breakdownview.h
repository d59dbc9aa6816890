#pragma once

#include "core/project/figuredata.h"

#include <QPoint>
#include <QWidget>
#include <array>
#include <vector>

#include "core/analysis/ruleedit.h"
#include "ui/models/breakdownmodel.h"
#include "ui/models/kernelmodel.h"

class QCheckBox;
class QComboBox;
class QCPAbstractPlottable;
class QCPBars;
class QCPItemRect;
class QCPItemText;
class QCPTextElement;
class QMouseEvent;
class QCustomPlot;
class QHBoxLayout;
class QSplitter;
class QTabWidget;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace reach {

class HeadroomPlot;
class RuleSuggestDialog;
class Session;

// Horizontal stacked bars (one per workload, the four categories in fixed colours), the
// addressable share printed on each bar, and a drill-down (table + bar chart) of the top kernels
// of the clicked segment. The plot holds a render copy of BreakdownModel's numbers.
class BreakdownView : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownView(Session* session, QWidget* parent = nullptr);

    BreakdownModel* model() const { return m_model; }
    KernelModel* kernelModel() const { return m_kernels; }
    QCustomPlot* plot() const { return m_plot; }
    QCustomPlot* drillPlot() const { return m_drillPlot; }
    // The headroom bar per workload under the stacked bars (ui/headroomplot.h).
    HeadroomPlot* headroomPlot() const { return m_headroom; }
    QTableView* kernelTable() const { return m_table; }
    // What the kernel table shows: kernelModel() sorted by a header click and filtered by
    // kernelFilter() (display or full name, operator, family, decided by; case-insensitive).
    QSortFilterProxyModel* kernelView() const { return m_kernelView; }
    QLineEdit* kernelFilter() const { return m_kernelFilter; }
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

    void setOperatorSplit(bool on);
    void setSpanShares(bool on);
    // What the figure plots (core/project/figuredata.h): its CSV.
    FigureTable figureData() const;
    // Fills the drill-down with every kernel of `category` in `row`; false when the row has
    // no kernels to show (a published workload).
    bool selectSegment(int row, Category category);
    int selectedRow() const { return m_selectedRow; }
    // Opens the drill-down on `category` of `row` and selects the kernel `fullName` in its table
    // (what a click on the roofline scatter does); false when the kernel is not there.
    bool selectKernel(int row, Category category, const QString& fullName);

    // Adds a rule before all others and re-classifies (what "Add rule..." does after its dialog).
    bool addRule(const Rule& rule, QString* error = nullptr);
    // What "Add rule..." proposes for a kernel of the drill-down (core proposeRuleCategory).
    CategoryProposal proposalFor(const QString& kernelName) const;
    // "Suggest rules...": core's suggestions for the selected workload (every measured one when
    // none is selected) in a dialog that stays open beside the view; it deletes itself on close.
    RuleSuggestDialog* openRuleSuggestions();

signals:
    void segmentSelected(int row, reach::Category category);
    void rulesEditRequested(const reach::RuleSet& rules);

public slots:
    void refreshStyle();

private:
    QHBoxLayout* buildControls();
    void buildPlot();
    QWidget* buildDrillDown();
    QSplitter* splitPlotAndDrillDown(QWidget* drill);
    void connectSignals();
    void onWorkloadsChanged();
    void clearSelection();  // no segment picked: an empty drill-down
    void rebuildPlot();
    void updateLegendEntries();
    void frameSelectedSegment(double width);
    void updateDrill();
    void addBarLabels(int row, double key, bool operatorSplit);
    void placeBarLabels();
    double barPixels() const;  // a name-rule bar's thickness on screen
    void updateFooter(bool operatorSplit);
    void showHover(QMouseEvent* event);
    void onPlottableClick(QCPAbstractPlottable* p, int dataIndex);
    void onAddRule();

    Session* m_session;
    BreakdownModel* m_model;
    KernelModel* m_kernels;
    QCustomPlot* m_plot;
    QCustomPlot* m_drillPlot;
    HeadroomPlot* m_headroom = nullptr;
    QTabWidget* m_lowerTabs = nullptr;  // the drill-down and the headroom bars
    QTableView* m_table;
    QSortFilterProxyModel* m_kernelView;
    QLineEdit* m_kernelFilter;
    QLabel* m_drillTitle;
    QPushButton* m_addRule;
    QPushButton* m_suggestRules;
    QCheckBox* m_opSplit;
    QComboBox* m_shareOf;
    std::array<QCPBars*, 4> m_bars{};
    std::array<QCPBars*, 4> m_opBars{};
    QCPBars* m_unsplit = nullptr;
    QCPBars* m_idle = nullptr;
    QCPBars* m_opUnlinked = nullptr;
    QCPBars* m_drillBars = nullptr;
    QCPItemRect* m_highlight = nullptr;
    QCPTextElement* m_footer = nullptr;
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
    QPoint m_pressPos;
    int m_selectedRow = -1;
    QString m_selectedName;  // to restore the drill-down after a re-classification
    Category m_selectedCategory = Category::Addressable;
};

}  // namespace reach
