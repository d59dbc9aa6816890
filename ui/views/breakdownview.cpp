#include "ui/views/breakdownview.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "core/analysis/kernelname.h"
#include "core/analysis/ruleedit.h"
#include "core/base/inputerror.h"
#include "core/benchmark/extract.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "ui/dialogs/addruledialog.h"
#include "ui/dialogs/rulesuggestdialog.h"
#include "ui/models/rulesetmodel.h"
#include "ui/plots/breakdownplot.h"
#include "ui/plots/headroomplot.h"
#include "ui/plots/plotrows.h"
#include "ui/recentfolders.h"
#include "ui/session.h"
#include "ui/theme.h"

namespace reach {

namespace {

constexpr size_t kDrillLabelChars = 38;
// The most height the stacked bars claim from the window before they scroll: about eight rows
// with a line each beside the legend, axis and footer, so that the window with the Messages
// dock open and a message bar shown still fits a 720 px screen (issue 40: at 340 it needed
// 725 px with 14 workloads and the dock; at 300, 740 px with the dock and a message bar).
constexpr int kMostUnscrolledHeight = 264;

// Esc in a filter box with text clears it (the window's Esc, which cancels background jobs,
// would otherwise take the key and the box would keep hiding rows); an empty box lets Esc
// through to the window.
class EscapeClearsFilter : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        auto* edit = qobject_cast<QLineEdit*>(watched);
        if (!edit || edit->text().isEmpty())
            return false;
        const bool escape =
            (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) &&
            static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape;
        if (!escape)
            return false;
        if (event->type() == QEvent::ShortcutOverride) {
            event->accept();  // the box, not the window's shortcut, gets this Esc
            return true;
        }
        edit->clear();
        return true;
    }
};

}  // namespace

BreakdownView::BreakdownView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    m_model = new BreakdownModel(this);
    m_kernels = new KernelModel(this);
    QHBoxLayout* controls = buildControls();
    m_plot = new BreakdownPlot(m_model, this);
    QWidget* drill = buildDrillDown();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(splitPlotAndDrillDown(drill), 1);
    connectSignals();
    refreshStyle();
    onWorkloadsChanged();
}

// The share basis and the operator-split toggle above the plot.
QHBoxLayout* BreakdownView::buildControls() {
    m_opSplit = new QCheckBox(tr("Operator-based split"), this);
    m_opSplit->setToolTip(
        tr("Beside each name-rule bar, the split by launching ATen operator "
           "(only where the trace links kernels to operators)"));
    m_shareOf = new QComboBox(this);
    m_shareOf->addItem(tr("Share of GPU time"));
    m_shareOf->addItem(tr("Share of wall clock (span)"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_shareOf);
    controls->addWidget(m_opSplit);
    controls->addStretch(1);
    return controls;
}

// The kernels of the clicked segment: header with "Add rule...", filter, table and chart.
QWidget* BreakdownView::buildDrillDown() {
    m_drillTitle = new QLabel(tr("Click a segment to see its kernels."), this);
    m_drillTitle->setObjectName(QStringLiteral("drillTitle"));
    m_drillTitle->setWordWrap(true);
    m_addRule = new QPushButton(tr("Add rule..."), this);
    m_addRule->setToolTip(tr("Classify the selected kernel with a new rule (re-classifies live)"));
    m_addRule->setEnabled(false);
    m_suggestRules = new QPushButton(tr("Suggest rules..."), this);
    m_suggestRules->setToolTip(
        tr("Proposed rules for the kernels no name rule matches, each accepted with one click"));
    auto* drillHeader = new QHBoxLayout;
    drillHeader->addWidget(m_drillTitle, 1);
    drillHeader->addWidget(m_suggestRules);
    drillHeader->addWidget(m_addRule);

    // Every kernel of the segment: sortable by any column (numbers as numbers), filtered by a
    // search over names, operator, family and what decided the category.
    m_kernelView = new QSortFilterProxyModel(this);
    m_kernelView->setSourceModel(m_kernels);
    m_kernelView->setSortRole(KernelModel::SortRole);
    m_kernelView->setFilterRole(KernelModel::SearchRole);
    m_kernelView->setFilterKeyColumn(KernelModel::Name);
    m_kernelView->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_kernelFilter = new QLineEdit(this);
    m_kernelFilter->setObjectName(QStringLiteral("kernelFilter"));
    m_kernelFilter->setPlaceholderText(tr("Filter kernels (name, operator, family, decided by)"));
    m_kernelFilter->setClearButtonEnabled(true);
    m_kernelFilter->installEventFilter(new EscapeClearsFilter(m_kernelFilter));
    m_table = new QTableView(this);
    m_table->setModel(m_kernelView);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(KernelModel::TimeMs, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    // The numbers and short labels take what they need; the display name takes the rest (its
    // full name is in the tooltip).
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(KernelModel::Name, QHeaderView::Stretch);
    // The launching operator's name can be as long as a kernel's: the two share what is left.
    m_table->horizontalHeader()->setSectionResizeMode(KernelModel::Operator, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(48);
    // The other columns fit their contents up to 220 px (elided past it).
    m_table->horizontalHeader()->setMaximumSectionSize(220);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);

    m_drillPlot = new QCustomPlot(this);
    m_drillPlot->setMinimumWidth(kPlotMinimumWidth);
    m_drillBars = addHorizontalBars(m_drillPlot, {}, Theme::categoryColor(Category::Addressable));
    m_drillBars->setWidth(0.7);
    m_drillPlot->xAxis->setLabel(tr("Time (ms)"));
    m_drillPlot->xAxis->ticker()->setTickCount(4);  // the chart is narrow: few, readable ticks
    m_drillPlot->yAxis->setTickLength(0, 0);
    m_drillPlot->yAxis->setSubTicks(false);
    m_drillPlot->yAxis->grid()->setVisible(false);

    // The chart starts at a usable size beside the table (its names are long); the main window
    // keeps the splitter where the user leaves it (QSettings, by object name).
    m_drillPlot->setMinimumSize(280, 100);  // gives way to the bars' rows in a short window
    auto* drillSplit = new QSplitter(Qt::Horizontal, this);
    drillSplit->setObjectName(QStringLiteral("drillSplitter"));
    drillSplit->addWidget(m_table);
    drillSplit->addWidget(m_drillPlot);
    drillSplit->setStretchFactor(0, 3);  // the table has seven columns, the chart one bar each
    drillSplit->setStretchFactor(1, 2);
    drillSplit->setSizes({600, 400});
    drillSplit->setChildrenCollapsible(false);
    auto* drill = new QWidget(this);
    auto* drillLayout = new QVBoxLayout(drill);
    drillLayout->setContentsMargins(0, 0, 0, 0);
    drillLayout->addLayout(drillHeader);
    drillLayout->addWidget(m_kernelFilter);
    drillLayout->addWidget(drillSplit, 1);
    return drill;
}

// Below the stacked bars, a tab each for the drill-down and the headroom bars: in one column
// with the stacked bars the headroom plot got too little height to be read (six rows in 80 px)
// or took it from the stacked bars' segment labels. A click on a segment shows the drill-down.
QSplitter* BreakdownView::splitPlotAndDrillDown(QWidget* drill) {
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("breakdownSplitter"));
    m_headroom = new HeadroomPlot(this);
    m_lowerTabs = new QTabWidget(this);
    m_lowerTabs->setObjectName(QStringLiteral("breakdownLowerTabs"));
    m_lowerTabs->setDocumentMode(true);
    m_lowerTabs->addTab(drill, tr("Drill-down"));
    m_lowerTabs->addTab(m_headroom, tr("Headroom at the roofline"));
    // The bars scroll when their rows need more height than the window has (a hundred
    // workloads): each row keeps a line of its own, and the window still fits the screen.
    m_scroll = new QScrollArea(this);
    m_scroll->setObjectName(QStringLiteral("breakdownScroll"));
    m_scroll->setWidget(m_plot);
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_plot->installEventFilter(this);
    split->addWidget(m_scroll);
    split->addWidget(m_lowerTabs);
    split->setStretchFactor(0, 2);  // the stacked bars: every segment that fits is labelled
    split->setStretchFactor(1, 1);
    split->setSizes({500, 250});  // the same 2:1 at first show (a scroll area asks for little)
    return split;
}

bool BreakdownView::eventFilter(QObject* watched, QEvent* event) {
    // QCustomPlot accepts every wheel event (it would zoom an axis), so the scroll area around
    // the bars never saw one: a hundred workloads could be scrolled only by the bar itself. The
    // plot zooms nothing here, so the wheel goes to the scroll area's bar.
    if (watched == m_plot && event->type() == QEvent::Wheel && m_scroll) {
        QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void BreakdownView::connectSignals() {
    connect(m_opSplit, &QCheckBox::toggled, this, &BreakdownView::setOperatorSplit);
    connect(m_shareOf, &QComboBox::currentIndexChanged, this,
            [this](int i) { setSpanShares(i == 1); });
    // Clicks are resolved against the bars only: the share labels and the selection frame sit
    // on top of the segments and would otherwise take QCustomPlot's plottableClick.
    connect(m_plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { m_pressPos = e->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if ((e->pos() - m_pressPos).manhattanLength() > 3)
            return;
        if (const auto segment = m_plot->segmentAt(e->pos()))
            selectSegment(segment->first, segment->second);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &BreakdownView::showHover);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu* menu = barsContextMenu(pos);
        menu->exec(m_plot->mapToGlobal(pos));
        menu->deleteLater();
    });
    connect(m_addRule, &QPushButton::clicked, this, &BreakdownView::onAddRule);
    connect(m_suggestRules, &QPushButton::clicked, this, &BreakdownView::openRuleSuggestions);
    connect(m_kernelFilter, &QLineEdit::textChanged, m_kernelView,
            &QSortFilterProxyModel::setFilterFixedString);
    // The chart beside the table shows what the filter leaves (issue 40, defect 8).
    connect(m_kernelFilter, &QLineEdit::textChanged, this, &BreakdownView::updateDrill);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { m_addRule->setEnabled(m_kernelView->rowCount() > 0); });
    // Another project: nothing of the last one's drill-down may stay beside the new bars.
    connect(m_session, &Session::projectOpened, this, &BreakdownView::clearSelection);
    connect(m_session, &Session::workloadsChanged, this, &BreakdownView::onWorkloadsChanged);
    connect(m_session, &Session::rulesChanged, this, &BreakdownView::rebuildPlot);
}

QCPBars* BreakdownView::bars(Category c) const {
    return m_plot->bars(c);
}

QCPBars* BreakdownView::operatorBars(Category c) const {
    return m_plot->operatorBars(c);
}

void BreakdownView::refreshStyle() {
    m_plot->refreshStyle();
    Theme::stylePlot(m_drillPlot);
    m_headroom->refreshStyle();
    rebuildPlot();
    updateDrill();
}

bool BreakdownView::selectKernel(int row, Category category, const QString& fullName) {
    if (!selectSegment(row, category))
        return false;
    m_kernelFilter->clear();  // the kernel may be filtered out
    for (int r = 0; r < m_kernelView->rowCount(); ++r) {
        const QModelIndex index = m_kernelView->index(r, KernelModel::Name);
        if (index.data(KernelModel::FullNameRole).toString() == fullName) {
            m_table->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_table->scrollTo(index);
            return true;
        }
    }
    return false;
}

double BreakdownView::keyOfRow(int row) const {
    return m_plot->keyOfRow(row);
}

int BreakdownView::rowOfBarKey(double key, bool operatorBar) const {
    return m_plot->rowOfBarKey(key, operatorBar);
}

QString BreakdownView::barLabel(int row) const {
    return m_plot->barLabel(row);
}

void BreakdownView::setOperatorSplit(bool on) {
    if (m_opSplit->isChecked() != on)
        m_opSplit->setChecked(on);  // re-enters through toggled()
    else
        rebuildPlot();
}

void BreakdownView::setSpanShares(bool on) {
    if (m_shareOf->currentIndex() != (on ? 1 : 0)) {
        m_shareOf->setCurrentIndex(on ? 1 : 0);
        return;
    }
    m_model->setSpanShares(on);
    rebuildPlot();
    if (m_selectedRow >= 0)
        selectSegment(m_selectedRow, m_selectedCategory);
}

void BreakdownView::onWorkloadsChanged() {
    m_model->setWorkloads(m_session->workloads());
    m_headroom->setWorkloads(m_session->workloads());
    rebuildPlot();
    // Keep the drill-down on the same workload and category across re-classification.
    for (int r = 0; r < m_model->rowCount(); ++r) {
        if (!m_selectedName.isEmpty() && toQString(m_model->workload(r).name) == m_selectedName) {
            selectSegment(r, m_selectedCategory);
            return;
        }
    }
    // The picked workload is gone (removed, or another project): its kernels must not stay.
    clearSelection();
    // Nothing picked yet: open the drill-down on the addressable kernels of the first profile,
    // so a newcomer sees what the bars are made of.
    for (int r = 0; r < m_model->rowCount(); ++r) {
        if (m_model->workload(r).breakdown) {
            selectSegment(r, Category::Addressable);
            return;
        }
    }
}

void BreakdownView::clearSelection() {
    m_selectedRow = -1;
    m_selectedName.clear();
    m_selectedCategory = Category::Addressable;
    m_kernels->clear();
    m_drillTitle->setText(tr("Click a segment to see its kernels."));
    m_addRule->setEnabled(false);
    updateDrill();
}

void BreakdownView::rebuildPlot() {
    const RuleSet& rules = m_session->rules();
    m_plot->setRuleSet(QString::fromStdString(rules.name()), QString::fromStdString(rules.hash()));
    m_plot->setOperatorSplit(m_opSplit->isChecked());
    m_plot->setHighlight(m_selectedRow, m_selectedCategory);
    // The splitter gives the bars all the height their rows ask for up to about a dozen rows
    // (the drill-down gives way); more rows scroll.
    m_scroll->setMinimumHeight(std::min(m_plot->minimumHeight(), kMostUnscrolledHeight));
}

void BreakdownView::showHover(QMouseEvent* event) {
    const QString text = m_plot->hoverText(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

bool BreakdownView::selectSegment(int row, Category category) {
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const ProjectWorkload& w = m_model->workload(row);
    m_selectedRow = row;
    m_selectedName = toQString(w.name);
    m_selectedCategory = category;
    if (!w.breakdown) {
        m_kernels->clear();
        m_drillTitle->setText(tr("%1 (%2): the study published shares only, no kernels.")
                                  .arg(toQString(w.name), toQString(w.origin)));
        m_addRule->setEnabled(false);
        updateDrill();
        rebuildPlot();
        emit segmentSelected(row, category);
        return false;
    }
    m_kernels->setSelection(w.breakdown, category);
    const double ms = w.breakdown->categoryUs[size_t(category)] / 1000.0;
    m_drillTitle->setText(
        tr("<b>%1</b> &mdash; %2: %3 ms, %4% of GPU time, %5 kernels")
            .arg(toQString(w.name).toHtmlEscaped(), toQString(categoryLabel(category)))
            .arg(ms, 0, 'f', 2)
            .arg(100.0 * w.breakdown->share(category), 0, 'f', 1)
            .arg(m_kernels->rowCount()));
    m_addRule->setEnabled(m_kernels->rowCount() > 0);
    m_addRule->setDefault(category == Category::Unclassified);
    m_lowerTabs->setCurrentIndex(0);  // the drill-down of what was clicked
    updateDrill();
    rebuildPlot();
    emit segmentSelected(row, category);
    return true;
}

void BreakdownView::updateDrill() {
    // The chart shows the largest kernels the table shows (its filter applied), largest at the
    // top, whatever column the table is sorted by.
    auto time = [this](int row) {
        return m_kernels->data(m_kernels->index(row, KernelModel::TimeMs), KernelModel::ValueRole)
            .toDouble();
    };
    std::vector<int> rows;
    for (int r = 0; r < m_kernelView->rowCount(); ++r)
        rows.push_back(m_kernelView->mapToSource(m_kernelView->index(r, 0)).row());
    std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) { return time(a) > time(b); });
    const int shown = std::min(int(rows.size()), 12);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys, values;
    for (int i = shown - 1; i >= 0; --i) {
        const double key = shown - 1 - i;
        const int row = rows[size_t(i)];
        keys << key;
        values << time(row);
        // Shorter than the table's column: the same display name, elided in the middle by core.
        const QString full =
            m_kernels->data(m_kernels->index(row, KernelModel::Name), KernelModel::FullNameRole)
                .toString();
        ticker->addTick(key, toQString(kernelDisplayName(full.toStdString(), kDrillLabelChars)));
    }
    m_drillBars->setBrush(Theme::categoryColor(m_kernels->category()));
    m_drillBars->setData(keys, values, true);
    m_drillPlot->yAxis->setTicker(ticker);
    m_drillPlot->yAxis->setRange(-0.6, std::max(0, shown - 1) + 0.6);
    const double max = values.isEmpty() ? 1.0 : *std::max_element(values.begin(), values.end());
    m_drillPlot->xAxis->setRange(0, max * 1.05);
    m_drillPlot->replot(QCustomPlot::rpQueuedReplot);
}

bool BreakdownView::addRule(const Rule& rule, QString* error) {
    if (!RuleSetModel::isValidPattern(QString::fromStdString(rule.pattern), error))
        return false;
    RuleSet rules = m_session->rules();
    rules.insertRule(0, rule);
    m_session->editRules(std::move(rules));
    return true;
}

CategoryProposal BreakdownView::proposalFor(const QString& kernelName) const {
    const Breakdown* breakdown = m_selectedRow >= 0 && m_selectedRow < m_model->rowCount()
                                     ? m_model->workload(m_selectedRow).breakdown.get()
                                     : nullptr;
    return proposeRuleCategory(m_session->rules(), breakdown, kernelName.toStdString(),
                               m_kernels->category());
}

void BreakdownView::onAddRule() {
    if (m_kernelView->rowCount() == 0)
        return;
    // The table shows the sorted, filtered view: its current row, else its first.
    const QModelIndex current = m_table->currentIndex();
    const QModelIndex at = current.isValid() ? current : m_kernelView->index(0, 0);
    const QString name = m_kernelView->data(at, KernelModel::FullNameRole).toString();
    const CategoryProposal proposal = proposalFor(name);
    AddRuleDialog dialog(name, proposal.category, this);
    dialog.setProposal(toQString(proposal.family), toQString(proposal.basis));
    if (dialog.exec() == QDialog::Accepted)
        addRule(dialog.rule());
}

RuleSuggestDialog* BreakdownView::openRuleSuggestions() {
    const bool measured = m_selectedRow >= 0 && m_selectedRow < m_model->rowCount() &&
                          m_model->workload(m_selectedRow).breakdown;
    auto* dialog = new RuleSuggestDialog(m_session, measured ? m_selectedRow : -1, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

QString BreakdownView::footerText() const {
    return m_plot->footerText();
}

FigureTable BreakdownView::figureData() const {
    return m_plot->figureData();
}

QMenu* BreakdownView::barsContextMenu(const QPoint& pos) {
    auto* menu = new QMenu(this);
    const auto segment = m_plot->segmentAt(pos);
    const int row = segment ? segment->first : -1;
    QAction* make = menu->addAction(tr("Make benchmark from this workload..."));
    make->setObjectName(QStringLiteral("makeBenchmark"));
    const bool profiled = row >= 0 && m_model->workload(row).breakdown;
    make->setEnabled(profiled);
    make->setToolTip(profiled ? tr("One KernelBench problem per hot operator call of its "
                                   "addressable time (reach-cli extract)")
                              : tr("Right-click a profiled workload's bar"));
    connect(make, &QAction::triggered, this, [this, row] {
        // A name typed for a folder that does not exist yet is what the user means (a folder
        // chooser answered "Directory not found", issue 40): the benchmark folder is made.
        const QString name = QString::fromStdString(m_model->workload(row).name);
        QString suggested = name;
        suggested.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")),
                          QStringLiteral("_"));
        const QString dir = QFileDialog::getSaveFileName(
            this, tr("A new or empty folder for the benchmark of %1").arg(name),
            chooserFolder(QStringLiteral("benchmark")) + QLatin1Char('/') + suggested +
                QStringLiteral("_benchmark"),
            QString(), nullptr, QFileDialog::DontConfirmOverwrite);
        if (dir.isEmpty())
            return;
        rememberChoice(QStringLiteral("benchmark"), QFileInfo(dir).absolutePath());
        QString message;
        if (makeBenchmark(row, dir, ExtractOptions().cover, &message))
            QMessageBox::information(this, tr("Benchmark written"), message);
        else
            QMessageBox::warning(this, tr("No benchmark written"), message);
    });
    return menu;
}

bool BreakdownView::makeBenchmark(int row, const QString& dir, double cover, QString* message) {
    auto say = [&](const QString& text) {
        if (message)
            *message = text;
    };
    if (row < 0 || row >= m_model->rowCount() || !m_model->workload(row).breakdown) {
        say(tr("This workload has no profile: a published table has no kernels."));
        return false;
    }
    const Breakdown& b = *m_model->workload(row).breakdown;
    ExtractOptions options;
    options.cover = cover;
    const Extraction e = extractBenchmark(b, options);
    if (e.shapedUs <= 0) {
        say(tr("%1 was not recorded with shapes (record_shapes=True): no operator call of its "
               "kernels has recorded arguments.")
                .arg(QString::fromStdString(b.workload)));
        return false;
    }
    const std::string profile = b.source.empty() ? b.workload : b.source;
    try {
        writeBenchmarkFolder(e, dir.toStdString(),
                             QFileInfo(QString::fromStdString(profile)).fileName().toStdString(),
                             m_session->rules().name(), m_session->rules().hash());
    } catch (const InputError& err) {
        say(QString::fromStdString(err.what()));
        return false;
    }
    say(tr("Wrote %n problem(s) to %1, covering %2 % of the addressable time. Check on a GPU "
           "machine that each launches the trace's kernels: reach-cli extract --check %1",
           nullptr, int(e.problems.size()))
            .arg(dir)
            .arg(100.0 * e.coveredShare(), 0, 'f', 1));
    return true;
}

}  // namespace reach
