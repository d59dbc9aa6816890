#pragma once

#include "core/project/figuredata.h"

#include <QPoint>
#include <QWidget>
#include <array>
#include <vector>

#include "core/analysis/ruleedit.h"
#include "ui/models/breakdownmodel.h"
#include "ui/models/kernelmodel.h"
#include "ui/plots/breakdownplot.h"

class QCheckBox;
class QComboBox;
class QCPBars;
class QMouseEvent;
class QCustomPlot;
class QHBoxLayout;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace reach {

class HeadroomPlot;
class RuleSuggestDialog;
class Session;

// The stacked bars (ui/plots/breakdownplot.h) of the session's workloads, and a drill-down
// (table + bar chart) of the kernels of the clicked segment; the headroom bars in a tab beside
// the drill-down. The view wires the session, the controls and the clicks; the plots paint.
class BreakdownView : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownView(Session* session, QWidget* parent = nullptr);

    BreakdownModel* model() const { return m_model; }
    KernelModel* kernelModel() const { return m_kernels; }
    BreakdownPlot* plot() const { return m_plot; }
    QCustomPlot* drillPlot() const { return m_drillPlot; }
    // The headroom bar per workload under the stacked bars (ui/plots/headroomplot.h).
    HeadroomPlot* headroomPlot() const { return m_headroom; }
    QTableView* kernelTable() const { return m_table; }
    // What the kernel table shows: kernelModel() sorted by a header click and filtered by
    // kernelFilter() (display or full name, operator, family, decided by; case-insensitive).
    QSortFilterProxyModel* kernelView() const { return m_kernelView; }
    QLineEdit* kernelFilter() const { return m_kernelFilter; }
    QCPBars* bars(Category c) const;
    QCPBars* operatorBars(Category c) const;
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

    // "Make benchmark from this workload..." (the bars' context menu): the workload of `row`
    // extracted as reach-cli extract does (core/benchmark/extract.h, docs/benchmark.md) into
    // `dir`, a new or empty folder; `message` gets the summary line, or why nothing was written.
    bool makeBenchmark(int row, const QString& dir, double cover, QString* message);
    // The context menu of the bars at `pos` (plot coordinates); the caller runs or inspects it.
    QMenu* barsContextMenu(const QPoint& pos);

signals:
    void segmentSelected(int row, reach::Category category);
    void rulesEditRequested(const reach::RuleSet& rules);

public slots:
    void refreshStyle();

protected:
    // The mouse wheel over the bars scrolls them (QCustomPlot takes every wheel event itself).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QHBoxLayout* buildControls();
    QWidget* buildDrillDown();
    QSplitter* splitPlotAndDrillDown(QWidget* drill);
    void connectSignals();
    void onWorkloadsChanged();
    void clearSelection();  // no segment picked: an empty drill-down
    void rebuildPlot();
    void updateDrill();
    void showHover(QMouseEvent* event);
    void onAddRule();

    Session* m_session;
    BreakdownModel* m_model;
    KernelModel* m_kernels;
    BreakdownPlot* m_plot;
    QScrollArea* m_scroll = nullptr;
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
    QCPBars* m_drillBars = nullptr;
    QPoint m_pressPos;
    int m_selectedRow = -1;
    QString m_selectedName;  // to restore the drill-down after a re-classification
    Category m_selectedCategory = Category::Addressable;
};

}  // namespace reach
