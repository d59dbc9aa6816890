#include "ui/views/breakdownview.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "core/analysis/kernelname.h"
#include "core/analysis/ruleedit.h"
#include "ui/dialogs/addruledialog.h"
#include "ui/dialogs/rulesuggestdialog.h"
#include "ui/models/rulesetmodel.h"
#include "ui/plots/headroomplot.h"
#include "ui/plots/plotrows.h"
#include "ui/session.h"
#include "ui/theme.h"

namespace reach {

namespace {

constexpr double kSplitOffset = 0.2;     // name bar above, operator bar below the row's centre
constexpr size_t kDrillLabelChars = 38;  // axis labels of the drill-down chart

QCPBars* makeBars(QCustomPlot* plot, const QString& name, const QColor& color) {
    auto* bars = new QCPBars(plot->yAxis, plot->xAxis);  // horizontal: keys on the y axis
    bars->setName(name);
    bars->setPen(QPen(Qt::white, 0.8));
    bars->setBrush(color);
    bars->setWidthType(QCPBars::wtPlotCoords);
    bars->setSelectable(QCP::stNone);
    return bars;
}

}  // namespace

BreakdownView::BreakdownView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    m_model = new BreakdownModel(this);
    m_kernels = new KernelModel(this);
    QHBoxLayout* controls = buildControls();
    buildPlot();
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

// One stacked bar per workload (its categories, then the study's unsplit part and the idle time),
// the lighter operator-split bar beside it, the legend above and the rule set's footer below.
void BreakdownView::buildPlot() {
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(220);
    m_plot->setMinimumWidth(kPlotMinimumWidth);
    m_plot->setMouseTracking(true);
    for (Category c : kCategories)
        m_bars[size_t(c)] = makeBars(m_plot, toQString(categoryLabel(c)), Theme::categoryColor(c));
    m_unsplit = makeBars(m_plot, tr("not split by the study"), Theme::unsplitColor());
    m_idle = makeBars(m_plot, tr("GPU idle"), QColor(0xee, 0xee, 0xee));
    for (Category c : kCategories) {
        QColor color = Theme::categoryColor(c);
        color.setAlpha(150);  // the operator split is the secondary, lighter bar
        m_opBars[size_t(c)] = makeBars(m_plot, {}, color);
        m_opBars[size_t(c)]->removeFromLegend();
    }
    m_opUnlinked = makeBars(m_plot, {}, QColor(0xdd, 0xdd, 0xdd));
    m_opUnlinked->removeFromLegend();
    for (size_t i = 1; i < 4; ++i) {
        m_bars[i]->moveAbove(m_bars[i - 1]);
        m_opBars[i]->moveAbove(m_opBars[i - 1]);
    }
    m_unsplit->moveAbove(m_bars[3]);
    m_idle->moveAbove(m_unsplit);
    m_opUnlinked->moveAbove(m_opBars[3]);

    // Legend in its own row above the plot, footer naming the rule set below it.
    addLegendRowAbove(m_plot, 6);
    m_plot->plotLayout()->setRowSpacing(2);
    m_footer = new QCPTextElement(m_plot, QString(), Theme::plotFont(8));
    m_plot->plotLayout()->addElement(2, 0, m_footer);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->xAxis->setRange(0, 100);
    m_plot->xAxis->setLabel(tr("Share of GPU time (%)"));
    m_plot->yAxis->setTickLength(0, 0);
    m_plot->yAxis->setSubTicks(false);
    m_plot->yAxis->grid()->setVisible(false);
    m_highlight = new QCPItemRect(m_plot);
    m_highlight->setPen(QPen(QColor(0x20, 0x20, 0x20), 2));
    m_highlight->setBrush(Qt::NoBrush);
    m_highlight->setVisible(false);
    m_highlight->setSelectable(false);
    m_highlight->setProperty("reach_screen_only", true);  // hidden in exported figures
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
    m_drillBars = makeBars(m_drillPlot, {}, Theme::categoryColor(Category::Addressable));
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
    m_headroom = new HeadroomPlot(m_session, this);
    m_lowerTabs = new QTabWidget(this);
    m_lowerTabs->setObjectName(QStringLiteral("breakdownLowerTabs"));
    m_lowerTabs->setDocumentMode(true);
    m_lowerTabs->addTab(drill, tr("Drill-down"));
    m_lowerTabs->addTab(m_headroom, tr("Headroom at the roofline"));
    split->addWidget(m_plot);
    split->addWidget(m_lowerTabs);
    split->setStretchFactor(0, 2);  // the stacked bars: every segment that fits is labelled
    split->setStretchFactor(1, 1);
    return split;
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
        int index = -1;
        QCPAbstractPlottable* p = m_plot->plottableAt(e->pos(), false, &index);
        onPlottableClick(p, index);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &BreakdownView::showHover);
    // On screen and in an exported figure alike, labels are fitted to the laid-out bars.
    connect(m_plot, &QCustomPlot::afterLayout, this, &BreakdownView::placeBarLabels);
    connect(m_addRule, &QPushButton::clicked, this, &BreakdownView::onAddRule);
    connect(m_suggestRules, &QPushButton::clicked, this, &BreakdownView::openRuleSuggestions);
    connect(m_kernelFilter, &QLineEdit::textChanged, m_kernelView,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { m_addRule->setEnabled(m_kernelView->rowCount() > 0); });
    // Another project: nothing of the last one's drill-down may stay beside the new bars.
    connect(m_session, &Session::projectOpened, this, &BreakdownView::clearSelection);
    connect(m_session, &Session::workloadsChanged, this, &BreakdownView::onWorkloadsChanged);
    connect(m_session, &Session::rulesChanged, this, &BreakdownView::rebuildPlot);
}

void BreakdownView::refreshStyle() {
    Theme::stylePlot(m_plot);
    Theme::stylePlot(m_drillPlot);
    const bool dark = Theme::mode() == Theme::Mode::Dark;
    m_footer->setTextColor(footerTextColor());
    m_highlight->setPen(QPen(dark ? Qt::white : QColor(0x20, 0x20, 0x20), 2));
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
    const int n = m_model->rowCount();
    double key = n - 1 - row;
    if (m_opSplit->isChecked() && m_model->hasOperatorSplit(row))
        key += kSplitOffset;
    return key;
}

int BreakdownView::rowOfBarKey(double key, bool operatorBar) const {
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const double k = keyOfRow(r) - (operatorBar ? 2 * kSplitOffset : 0.0);
        if (std::abs(k - key) < 1e-6)
            return r;
    }
    return -1;
}

QString BreakdownView::barLabel(int row) const {
    if (row < 0 || row >= int(m_labels.size()))
        return {};
    return m_labels[size_t(row)] ? m_labels[size_t(row)]->text() : QString();
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
    m_plot->xAxis->setLabel(on ? tr("Share of profiled wall clock (%)")
                               : tr("Share of GPU time (%)"));
    rebuildPlot();
    if (m_selectedRow >= 0)
        selectSegment(m_selectedRow, m_selectedCategory);
}

void BreakdownView::onWorkloadsChanged() {
    m_model->setWorkloads(m_session->workloads());
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
    const int n = m_model->rowCount();
    // Every row label a line of its own: with a dozen workloads in a 720 px window under the
    // Messages dock the rows were 10 px apart and their labels ran into each other. The plot
    // asks for a line and a little per row beside its legend, axis and footer; the drill-down
    // below gives way (the splitter).
    const int line = QFontMetrics(m_plot->yAxis->tickLabelFont()).height();
    m_plot->setMinimumHeight(std::max(220, n * (line + 2) + 110));
    const bool op = m_opSplit->isChecked();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    std::array<QVector<double>, 4> keys, values, opKeys, opValues;
    QVector<double> restKeys, unsplit, idle, unlinkedKeys, unlinked;
    for (const SegmentLabel& l : m_segmentLabels)
        m_plot->removeItem(l.text);
    m_segmentLabels.clear();
    m_labels.assign(size_t(n), nullptr);
    std::vector<ProjectWorkload> rows;
    for (int r = 0; r < n; ++r)
        rows.push_back(m_model->workload(r));
    const std::vector<RowLabel> labels = rowLabels(rows);  // tags tell same-name rows apart
    // Rows run top to bottom, keys bottom to top: walk backwards so keys come out sorted.
    for (int row = n - 1; row >= 0; --row) {
        const double key = keyOfRow(row);
        // One label per row, at the middle of its bar pair when the operator split is shown.
        const bool pair = op && m_model->hasOperatorSplit(row);
        ticker->addTick(pair ? key - kSplitOffset : key, toQString(labels[size_t(row)].text()));
        double total = 0;
        for (Category c : kCategories) {
            const double v = 100.0 * m_model->share(row, c);
            keys[size_t(c)] << key;
            values[size_t(c)] << v;
            total += v;
        }
        restKeys << key;
        unsplit << 100.0 * m_model->unsplit(row);
        idle << 100.0 * m_model->idle(row);
        total += unsplit.back() + idle.back();
        if (op && m_model->hasOperatorSplit(row)) {
            const double okey = key - 2 * kSplitOffset;
            double linked = 0;
            for (Category c : kCategories) {
                const double v = 100.0 * m_model->operatorShare(row, c);
                opKeys[size_t(c)] << okey;
                opValues[size_t(c)] << v;
                linked += v;
            }
            unlinkedKeys << okey;
            unlinked << std::max(0.0, 100.0 - linked);
        }

        addBarLabels(row, key, op);
    }

    const double width = op ? 0.36 : 0.66;
    for (size_t i = 0; i < 4; ++i) {
        m_bars[i]->setWidth(width);
        m_bars[i]->setData(keys[i], values[i], true);
        m_opBars[i]->setWidth(width);
        m_opBars[i]->setData(opKeys[i], opValues[i], true);
    }
    m_unsplit->setWidth(width);
    m_unsplit->setData(restKeys, unsplit, true);
    m_idle->setWidth(width);
    m_idle->setData(restKeys, idle, true);
    m_opUnlinked->setWidth(width);
    m_opUnlinked->setData(unlinkedKeys, unlinked, true);
    updateLegendEntries();

    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    updateFooter(op);
    frameSelectedSegment(width);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// Every category segment gets its share printed on it; placeBarLabels shows those that fit once
// the plot knows its size. The addressable share is also shown when its segment is too narrow:
// after the bar, in the plot's right margin.
// "GPU idle" only in span mode, "not split by the study" only with a published row.
void BreakdownView::updateLegendEntries() {
    m_idle->setVisible(m_model->spanShares());
    if (m_model->spanShares())
        m_idle->addToLegend();
    else
        m_idle->removeFromLegend();
    bool anyPublished = false;
    for (int r = 0; r < m_model->rowCount(); ++r)
        anyPublished = anyPublished || m_model->workload(r).published;
    if (anyPublished)
        m_unsplit->addToLegend();
    else
        m_unsplit->removeFromLegend();
}

// The frame around the clicked segment, whose kernels the drill-down shows.
void BreakdownView::frameSelectedSegment(double width) {
    const int n = m_model->rowCount();
    m_highlight->setVisible(false);
    if (m_selectedRow >= 0 && m_selectedRow < n && m_model->workload(m_selectedRow).breakdown) {
        const double key = keyOfRow(m_selectedRow);
        double start = 0;
        for (Category c : kCategories) {
            if (c == m_selectedCategory)
                break;
            start += 100.0 * m_model->share(m_selectedRow, c);
        }
        const double end = start + 100.0 * m_model->share(m_selectedRow, m_selectedCategory);
        m_highlight->topLeft->setCoords(start, key + width / 2);
        m_highlight->bottomRight->setCoords(end, key - width / 2);
        m_highlight->setVisible(end > start);
    }
}

void BreakdownView::addBarLabels(int row, double key, bool operatorSplit) {
    const QColor plainText =
        Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    auto makeText = [this](const QString& text) {
        auto* label = new QCPItemText(m_plot);
        label->setSelectable(false);
        label->setFont(Theme::plotFont(8));
        label->setText(text);
        return label;
    };
    if (m_model->spanUnknown(row)) {
        QCPItemText* label = makeText(tr("published shares of GPU time: no profiled span to draw"));
        label->position->setCoords(0.8, key);
        label->setColor(plainText);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        m_labels[size_t(row)] = label;
        m_segmentLabels.push_back({label, row, Category::Addressable, 0, 0, key, false});
        return;
    }
    double start = 0;
    for (Category c : kCategories) {
        const double share = 100.0 * m_model->share(row, c);
        if (share > 0 || c == Category::Addressable) {
            QCPItemText* label = makeText(QString::number(share, 'f', 1) + QLatin1Char('%'));
            label->position->setCoords(start + share / 2, key);
            label->setColor(Theme::textOn(Theme::categoryColor(c)));
            label->setPositionAlignment(Qt::AlignCenter);
            // The thin bars of the operator split leave no room for text: hover tells numbers.
            label->setVisible(!operatorSplit);
            m_segmentLabels.push_back({label, row, c, start, start + share, key, true});
            if (c == Category::Addressable)
                m_labels[size_t(row)] = label;
        }
        start += share;
    }
}

void BreakdownView::placeBarLabels() {
    if (m_opSplit->isChecked())
        return;
    const QColor plainText =
        Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    QCPAxis* x = m_plot->xAxis;
    // Two passes: the margin the outside labels need narrows the bars, which may push another
    // label out of its segment.
    for (int pass = 0; pass < 2; ++pass) {
        double outsideWidth = 0;
        for (const SegmentLabel& l : m_segmentLabels) {
            if (!l.inSegment)
                continue;
            const QString share = QString::number(l.end - l.start, 'f', 1) + QLatin1Char('%');
            const QFontMetricsF tm(l.text->font());
            const double room = std::abs(x->coordToPixel(l.end) - x->coordToPixel(l.start));
            // The ink of the digits, not the font's line height, has to fit in the bar: the
            // line height (descent and leading included) left every bar of a 13-row window
            // without its numbers.
            const bool fits = tm.horizontalAdvance(share) + 4 <= room &&
                              tm.tightBoundingRect(share).height() + 2 <= barPixels();
            if (fits) {
                l.text->setText(share);
                l.text->position->setCoords((l.start + l.end) / 2, l.key);
                l.text->setColor(Theme::textOn(Theme::categoryColor(l.category)));
                l.text->setPositionAlignment(Qt::AlignCenter);
                l.text->setClipToAxisRect(true);
                l.text->setVisible(true);
            } else if (l.category == Category::Addressable) {
                l.text->setText(tr("%1 addr.").arg(share));
                l.text->position->setCoords(x->range().upper, l.key);
                l.text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
                l.text->setPadding(QMargins(3, 0, 0, 0));
                l.text->setColor(plainText);
                l.text->setClipToAxisRect(false);
                l.text->setVisible(true);
                outsideWidth = std::max(outsideWidth, tm.horizontalAdvance(l.text->text()) + 6);
            } else {
                l.text->setVisible(false);
            }
        }
        // At least room for half of the axis's last tick label ("100"), which QCustomPlot does
        // not draw at all when the widget's edge would cut it.
        const double lastTick =
            QFontMetricsF(x->tickLabelFont()).horizontalAdvance(QStringLiteral("100")) / 2 + 4;
        const int margin = int(std::ceil(std::max({outsideWidth, lastTick, 12.0})));
        QCPAxisRect* rect = m_plot->axisRect();
        if (rect->margins().right() == margin)
            return;
        rect->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
        QMargins m = rect->margins();
        m.setRight(margin);
        rect->setMargins(m);
        m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
        m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
    }
}

double BreakdownView::barPixels() const {
    const double width = m_opSplit->isChecked() ? 0.36 : 0.66;
    QCPAxis* y = m_plot->yAxis;
    return std::abs(y->coordToPixel(width) - y->coordToPixel(0));
}

void BreakdownView::updateFooter(bool operatorSplit) {
    const RuleSet& rules = m_session->rules();
    QString footer = tr("Rule set: %1 (%2)")
                         .arg(QString::fromStdString(rules.name()),
                              QString::fromStdString(rules.hash()).left(12));
    if (operatorSplit)
        footer +=
            tr(". Upper bar: kernel-name rules; lower, lighter bar: launching ATen operator.");
    m_footer->setText(footer);
}

void BreakdownView::showHover(QMouseEvent* event) {
    int index = -1;
    QCPAbstractPlottable* p = m_plot->plottableAt(event->pos(), false, &index);
    auto* bars = qobject_cast<QCPBars*>(p);
    if (!bars || index < 0 || index >= bars->dataCount()) {
        QToolTip::hideText();
        return;
    }
    const double key = bars->data()->at(index)->key;
    const double value = bars->data()->at(index)->value;
    const bool isOp =
        std::find(m_opBars.begin(), m_opBars.end(), bars) != m_opBars.end() || bars == m_opUnlinked;
    const int row = rowOfBarKey(key, isOp);
    if (row < 0 || row >= m_model->rowCount())
        return;
    QString text = toQString(m_model->workload(row).name) + QLatin1Char('\n');
    auto cat = std::find(m_bars.begin(), m_bars.end(), bars);
    if (cat != m_bars.end()) {
        const Category c = Category(cat - m_bars.begin());
        text += toQString(categoryLabel(c)) + QStringLiteral(": ");
        const double ms = m_model->milliseconds(row, c);
        if (!std::isnan(ms))
            text += tr("%1 ms, ").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
        text += tr("%1% of %2")
                    .arg(value, 0, 'f', 1)
                    .arg(m_model->spanShares() ? tr("wall clock") : tr("GPU time"));
        if (m_model->workload(row).breakdown)
            text += tr("\nclick for its kernels");
    } else if (isOp) {
        text += tr("by operator: %1%").arg(value, 0, 'f', 1);
    } else {
        text += bars->name() + QStringLiteral(": ") + QString::number(value, 'f', 1) + '%';
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void BreakdownView::onPlottableClick(QCPAbstractPlottable* p, int dataIndex) {
    auto* bars = qobject_cast<QCPBars*>(p);
    auto cat = std::find(m_bars.begin(), m_bars.end(), bars);
    if (!bars || cat == m_bars.end() || dataIndex < 0 || dataIndex >= bars->dataCount())
        return;
    const int row = rowOfBarKey(bars->data()->at(dataIndex)->key, false);
    if (row >= 0)
        selectSegment(row, Category(cat - m_bars.begin()));
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
    // The chart shows the largest kernels of the table, largest at the top.
    const int shown = std::min(m_kernels->rowCount(), 12);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys, values;
    for (int i = shown - 1; i >= 0; --i) {
        const double key = shown - 1 - i;
        keys << key;
        values << m_kernels->data(m_kernels->index(i, KernelModel::TimeMs), KernelModel::ValueRole)
                      .toDouble();
        // Shorter than the table's column: the same display name, elided in the middle by core.
        const QString full =
            m_kernels->data(m_kernels->index(i, KernelModel::Name), KernelModel::FullNameRole)
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
    return m_footer ? m_footer->text() : QString();
}

FigureTable BreakdownView::figureData() const {
    return breakdownFigureTable(m_session->workloads(), m_model->spanShares());
}

}  // namespace reach
