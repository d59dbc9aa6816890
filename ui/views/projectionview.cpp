#include "ui/views/projectionview.h"

#include <qcustomplot.h>

#include <QAbstractItemView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "core/project/workloadheadroom.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/plotrows.h"
#include "ui/session.h"
#include "ui/theme.h"

namespace reach {

namespace {

struct Preset {
    const char* label;
    int winners, denominator;
    double median;
};
// The study's two benchmark summaries (DOMAIN.md).
constexpr Preset kPresets[] = {{"KernelBench L1 frontier: 22/56, 1.235x", 22, 56, 1.235},
                               {"DLRM-Bench: 5/12, 1.552x", 5, 12, 1.552}};

constexpr int kHeatCells = 160;

// Viridis (perceptually uniform, colour-blind safe, prints in greyscale); QCustomPlot 2.1 has
// no preset for it.
QCPColorGradient viridis() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.00, QColor(68, 1, 84));
    g.setColorStopAt(0.25, QColor(59, 82, 139));
    g.setColorStopAt(0.50, QColor(33, 145, 140));
    g.setColorStopAt(0.75, QColor(94, 201, 98));
    g.setColorStopAt(1.00, QColor(253, 231, 37));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    return g;
}

QString formatSpeedup(double m) {
    return QString::number(m, 'g', 4) + QLatin1Char('x');
}

}  // namespace

double ProjectionView::medianFromSlider(int position) {
    return std::pow(10.0, double(position) / kSliderSteps);
}

int ProjectionView::sliderFromMedian(double median) {
    return int(std::lround(std::log10(std::clamp(median, 1.0, 10.0)) * kSliderSteps));
}

ProjectionView::ProjectionView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    m_model = new ProjectionModel(this);
    QFormLayout* form = createControls();
    createBarPlot();
    createHeatMap();
    createLayout(form);
    connectControls();
    syncControls();
    refreshStyle();
    onWorkloadsChanged();
}

QFormLayout* ProjectionView::createControls() {
    m_winSlider = new QSlider(Qt::Horizontal, this);
    m_winSlider->setRange(0, 1000);  // 0.1 % steps
    m_winSlider->setObjectName(QStringLiteral("winRateSlider"));
    m_winSpin = new QDoubleSpinBox(this);
    m_winSpin->setRange(0, 100);
    m_winSpin->setDecimals(1);
    m_winSpin->setSuffix(QStringLiteral(" %"));
    m_winSpin->setSingleStep(0.5);
    m_medianSlider = new QSlider(Qt::Horizontal, this);
    m_medianSlider->setRange(0, kSliderSteps);
    m_medianSlider->setObjectName(QStringLiteral("medianSlider"));
    m_medianSlider->setToolTip(tr("Log scale, 1x to 10x"));
    m_medianSpin = new QDoubleSpinBox(this);
    m_medianSpin->setRange(1.0, 10.0);
    m_medianSpin->setDecimals(3);
    m_medianSpin->setSingleStep(0.01);
    m_medianSpin->setSuffix(QStringLiteral(" x"));
    m_presets = new QComboBox(this);
    m_presets->addItem(tr("Presets..."));
    for (const Preset& p : kPresets)
        m_presets->addItem(tr(p.label));
    m_presets->addItem(tr("From selected evaluation set"));

    auto* winRow = new QHBoxLayout;
    winRow->addWidget(m_winSlider, 1);
    winRow->addWidget(m_winSpin);
    auto* medianRow = new QHBoxLayout;
    medianRow->addWidget(m_medianSlider, 1);
    medianRow->addWidget(m_medianSpin);
    auto* form = new QFormLayout;
    form->addRow(tr("Win rate (verified faster):"), winRow);
    form->addRow(tr("Median speedup of winners:"), medianRow);
    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(m_presets);
    presetRow->addStretch(1);
    presetRow->addWidget(new QLabel(tr("Heat map for:"), this));
    m_heatWorkload = new QComboBox(this);
    // As wide as about 28 characters, never as wide as the longest workload name (a dozen real
    // traces widened the window past a 1280 px screen); the list itself shows whole names.
    m_heatWorkload->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_heatWorkload->setMinimumContentsLength(28);
    m_heatWorkload->view()->setMinimumWidth(m_heatWorkload->fontMetrics().averageCharWidth() * 60);
    presetRow->addWidget(m_heatWorkload);
    form->addRow(presetRow);

    return form;
}

void ProjectionView::createBarPlot() {
    // Bars: projected gain per workload.
    m_bars = new QCustomPlot(this);
    m_bars->setMinimumWidth(kPlotMinimumWidth);
    m_gainBars = new QCPBars(m_bars->yAxis, m_bars->xAxis);
    m_gainBars->setWidthType(QCPBars::wtPlotCoords);
    m_gainBars->setWidth(0.62);
    m_gainBars->setPen(Qt::NoPen);
    m_gainBars->setBrush(Theme::categoryColor(Category::Addressable));
    m_gainBars->setSelectable(QCP::stNone);
    m_gainBars->setName(tr("study's projection A*w*(1-1/m)"));
    // The speed-of-light bound (core/headroom) is drawn across each bar as a line item; these
    // graphs hold no data and only give the lines their legend entries.
    m_boundLegend = m_bars->addGraph(m_bars->yAxis, m_bars->xAxis);
    m_boundLegend->setName(tr("speed of light, addressable kernels"));
    m_boundAllLegend = m_bars->addGraph(m_bars->yAxis, m_bars->xAxis);
    m_boundAllLegend->setName(tr("speed of light, all kernels"));
    for (QCPGraph* g : {m_boundLegend, m_boundAllLegend})
        g->setSelectable(QCP::stNone);
    addLegendRowAbove(m_bars, 3);
    m_bars->xAxis->setLabel(tr("Projected end-to-end gain (% of GPU time saved)"));
    m_bars->yAxis->setTickLength(0, 0);
    m_bars->yAxis->setSubTicks(false);
    m_bars->yAxis->grid()->setVisible(false);

    // The rule set the shares come from, as under the breakdown: a figure says what made it.
    m_bars->plotLayout()->insertRow(2);
    m_barsFooter = new QCPTextElement(m_bars, QString(), Theme::plotFont(8));
    m_bars->plotLayout()->addElement(2, 0, m_barsFooter);
    m_bars->plotLayout()->setRowStretchFactor(2, 0.001);
}

void ProjectionView::createHeatMap() {
    // Heat map: gain over (win rate, median) for one workload; y is log10(median).
    m_heat = new QCustomPlot(this);
    m_heat->setMinimumWidth(kPlotMinimumWidth);
    m_map = new QCPColorMap(m_heat->xAxis, m_heat->yAxis);
    m_map->setSelectable(QCP::stNone);
    // Cell centres where core's projectionGrid evaluates the formula: the map shows its numbers.
    m_map->data()->setSize(kHeatCells, kHeatCells);
    m_map->data()->setRange(QCPRange(50.0 / kHeatCells, 100.0 - 50.0 / kHeatCells),
                            QCPRange(0.5 / kHeatCells, 1.0 - 0.5 / kHeatCells));
    m_map->setInterpolate(true);
    m_scale = new QCPColorScale(m_heat);
    m_heat->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(tr("Projected gain (%)"));
    m_scale->setBarWidth(12);
    m_map->setColorScale(m_scale);  // the map takes the scale's gradient: set it after
    m_scale->setGradient(viridis());
    m_map->setGradient(viridis());
    m_heat->plotLayout()->insertRow(0);
    m_heatTitle = new QCPTextElement(m_heat, QString(), Theme::plotFont(9));
    m_heat->plotLayout()->addElement(0, 0, m_heatTitle);
    m_heat->plotLayout()->setRowStretchFactor(0, 0.001);
    auto* margins = new QCPMarginGroup(m_heat);
    m_heat->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_heat->xAxis->setLabel(tr("Win rate (%)"));
    m_heat->yAxis->setLabel(tr("Median speedup of winners"));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (double m : {1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0})
        ticker->addTick(std::log10(m), formatSpeedup(m));
    m_heat->yAxis->setTicker(ticker);
    m_heat->xAxis->setRange(0, 100);
    m_heat->yAxis->setRange(0, 1);
    createHeatMarkers();
}

// The two study benchmarks (white diamonds) and the current point with its gain.
void ProjectionView::createHeatMarkers() {
    m_references = m_heat->addGraph();
    m_references->setLineStyle(QCPGraph::lsNone);
    m_references->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, Qt::white, Qt::white, 6));
    m_references->setSelectable(QCP::stNone);
    for (const Preset& p : kPresets) {
        const double x = 100.0 * p.winners / p.denominator, y = std::log10(p.median);
        m_references->addData(x, y);
        auto* text = new QCPItemText(m_heat);
        text->setSelectable(false);
        text->setFont(Theme::plotFont(7));
        text->setColor(Qt::white);
        text->setText(QString(p.label).section(QLatin1Char(':'), 0, 0));
        text->position->setCoords(x + 3.0, y);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    }
    // The moving point lives on its own buffered layer: a slider move repaints only that layer.
    m_heat->addLayer(QStringLiteral("cursor"), m_heat->layer(QStringLiteral("main")),
                     QCustomPlot::limAbove);
    m_heat->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);
    m_marker = m_heat->addGraph();
    m_marker->setLayer(QStringLiteral("cursor"));
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), QColor(255, 255, 255), 11));
    m_marker->setSelectable(QCP::stNone);
    m_markerLabel = new QCPItemText(m_heat);
    m_markerLabel->setLayer(QStringLiteral("cursor"));
    m_markerLabel->setSelectable(false);
    m_markerLabel->setFont(Theme::plotFont(8));
    m_markerLabel->setColor(Qt::black);
    m_markerLabel->setBrush(QColor(255, 255, 255, 220));
    m_markerLabel->setPadding(QMargins(3, 1, 3, 1));
    m_markerLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_heat->setMouseTracking(true);
}

void ProjectionView::createLayout(QFormLayout* form) {
    m_assumptions = new QLabel(this);
    m_assumptions->setWordWrap(true);
    m_assumptions->setTextFormat(Qt::PlainText);
    m_assumptions->setObjectName(QStringLiteral("assumptions"));

    auto* plots = new QSplitter(Qt::Horizontal, this);
    plots->setObjectName(QStringLiteral("projectionSplitter"));
    plots->addWidget(m_bars);
    plots->addWidget(m_heat);
    plots->setStretchFactor(0, 3);
    plots->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(plots, 1);
    layout->addWidget(m_assumptions);
}

void ProjectionView::connectControls() {
    connect(m_winSlider, &QSlider::valueChanged, this,
            [this](int v) { setByHand(v / 1000.0, m_model->medianSpeedup()); });
    connect(m_winSpin, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { setByHand(v / 100.0, m_model->medianSpeedup()); });
    connect(m_medianSlider, &QSlider::valueChanged, this,
            [this](int v) { setByHand(m_model->winRate(), medianFromSlider(v)); });
    connect(m_medianSpin, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { setByHand(m_model->winRate(), v); });
    connect(m_presets, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            applyPreset(i - 1);
        m_presets->setCurrentIndex(0);
    });
    connect(m_heatWorkload, &QComboBox::activated, this, &ProjectionView::setHeatRow);
    connect(m_bars, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable*, int i, QMouseEvent*) {
                if (i >= 0 && i < m_gainBars->dataCount())
                    setHeatRow(m_model->rowCount() - 1 - qRound(m_gainBars->data()->at(i)->key));
            });
    connect(m_session, &Session::workloadsChanged, this, &ProjectionView::onWorkloadsChanged);

    // While a slider is held, the gain axis only grows: the bars do not rescale under the
    // cursor. Released, it fits the values again.
    for (QSlider* slider : {m_winSlider, m_medianSlider}) {
        connect(slider, &QSlider::sliderPressed, this, [this] { m_axisHeld = true; });
        connect(slider, &QSlider::sliderReleased, this, [this] {
            m_axisHeld = false;
            updateBars();
        });
    }
    connect(m_heat, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent* e) { showHeatTip(e->pos(), e->globalPosition().toPoint()); });
    connect(m_heat, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { pickFromHeatMap(e->pos()); });
    connect(m_session, &Session::rulesChanged, this, &ProjectionView::updateFooter);
    connect(m_bars, &QCustomPlot::afterLayout, this, &ProjectionView::fitValueLabels);
    // A bar's whole name and values on hover (the axis shows the short label; with many rows
    // the values are not printed).
    connect(m_bars, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int n = m_model->rowCount();
        const int key = int(std::lround(m_bars->yAxis->pixelToCoord(e->pos().y())));
        const int row = n - 1 - key;
        if (!m_bars->axisRect()->rect().contains(e->pos()) || row < 0 || row >= n ||
            row >= int(m_labels.size())) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(e->globalPosition().toPoint(),
                           toQString(m_labels[size_t(row)].full) + QLatin1Char('\n') +
                               m_valueLabels[size_t(row)]->property("reach_full_label").toString(),
                           m_bars);
    });
}

void ProjectionView::refreshStyle() {
    Theme::stylePlot(m_bars);
    Theme::stylePlot(m_heat);
    m_heat->xAxis->grid()->setVisible(false);
    m_heat->yAxis->grid()->setVisible(false);
    const bool dark = Theme::mode() == Theme::Mode::Dark;
    m_scale->axis()->setBasePen(Qt::NoPen);
    m_scale->axis()->setTickLabelColor(dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20));
    m_scale->axis()->setLabelColor(dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20));
    m_scale->axis()->setTickLabelFont(Theme::plotFont(8));
    m_scale->axis()->setLabelFont(Theme::plotFont(9));
    m_heatTitle->setTextColor(dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20));
    m_barsFooter->setTextColor(footerTextColor());
    updateBounds();
    updateBars();
    updateMarker();
    m_heat->replot(QCustomPlot::rpQueuedReplot);
}

void ProjectionView::syncControls() {
    const QSignalBlocker b1(m_winSlider), b2(m_winSpin), b3(m_medianSlider), b4(m_medianSpin);
    m_winSlider->setValue(int(std::lround(m_model->winRate() * 1000)));
    m_winSpin->setValue(100.0 * m_model->winRate());
    m_medianSlider->setValue(sliderFromMedian(m_model->medianSpeedup()));
    m_medianSpin->setValue(m_model->medianSpeedup());
    m_assumptions->setText(tr("Current point: w = %1%, m = %2, from %3. ")
                               .arg(100.0 * m_model->winRate(), 0, 'f', 1)
                               .arg(formatSpeedup(m_model->medianSpeedup()))
                               .arg(m_source) +
                           QString::fromStdString(projectionAssumptions()) +
                           tr(" The bold value is the workload shown in the heat map.") +
                           tr(" The lines across a bar are the speed-of-light bound "
                              "(core/headroom, docs/headroom.md): the GPU time saved if the "
                              "addressable kernels (solid) or all kernels (dashed) ran at their "
                              "roofline; no kernel, generated or hand-written, saves more on "
                              "this profile.") +
                           idleWarnings());
}

QString ProjectionView::idleWarnings() const {
    // A mostly idle GPU turns a GPU-time gain into little wall clock: say so per workload.
    QString out;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const Projection& p = m_model->projection(r);
        if (p.wall && p.wall->mostlyIdle()) {
            out += QStringLiteral("\n") + toQString(m_model->workload(r).name) +
                   QStringLiteral(": ") + toQString(wallClockWarning(*p.wall)) + QLatin1Char('.');
        }
    }
    return out;
}

void ProjectionView::setByHand(double winRate, double medianSpeedup) {
    m_source = tr("values set by hand");
    setParameters(winRate, medianSpeedup);
}

void ProjectionView::setParameters(double winRate, double medianSpeedup) {
    winRate = std::clamp(winRate, 0.0, 1.0);
    medianSpeedup = std::clamp(medianSpeedup, 1.0, 10.0);
    if (winRate == m_model->winRate() && medianSpeedup == m_model->medianSpeedup())
        return;
    m_model->setParameters(winRate, medianSpeedup);
    syncControls();
    updateBars();
    updateMarker();
    emit parametersChanged(winRate, medianSpeedup);
}

bool ProjectionView::applyPreset(int preset) {
    if (preset >= 0 && preset < int(std::size(kPresets))) {
        const Preset& p = kPresets[preset];
        m_source = tr("preset %1 (published summary)").arg(QString::fromUtf8(p.label));
        setParameters(double(p.winners) / p.denominator, p.median);
        syncControls();
        return true;
    }
    const auto& sets = m_session->evaluations();
    int index = m_selectedEvaluation;
    if (index < 0 || index >= int(sets.size()) || !sets[size_t(index)].projectable()) {
        index = -1;  // no usable selection: the first set that has a median
        for (size_t i = 0; i < sets.size() && index < 0; ++i) {
            if (sets[i].projectable())
                index = int(i);
        }
    }
    if (index < 0)
        return false;
    const EvaluationSet& set = sets[size_t(index)];
    m_source = tr("evaluation set \"%1\": %2 of %3, %4")
                   .arg(toQString(set.name))
                   .arg(set.winners)
                   .arg(set.denominator)
                   .arg(toQString(set.basisText()));
    setParameters(set.winRate(), *set.medianSpeedup);
    syncControls();
    return true;
}

void ProjectionView::setSelectedEvaluation(int index) {
    m_selectedEvaluation = index;
}

void ProjectionView::onWorkloadsChanged() {
    const QString previous = m_heatRow >= 0 && m_heatRow < m_model->rowCount()
                                 ? toQString(m_model->workload(m_heatRow).name)
                                 : QString();
    m_model->setWorkloads(m_session->workloads());
    {
        const QSignalBlocker block(m_heatWorkload);
        m_heatWorkload->clear();
        // The axis's short labels, made once per change of the workloads (not per slider
        // move); the full name and device in the tooltip.
        std::vector<ProjectWorkload> rows;
        for (int r = 0; r < m_model->rowCount(); ++r)
            rows.push_back(m_model->workload(r));
        m_labels = rowLabels(rows);
        for (int r = 0; r < m_model->rowCount(); ++r) {
            m_heatWorkload->addItem(toQString(m_labels[size_t(r)].text()));
            m_heatWorkload->setItemData(r, toQString(m_labels[size_t(r)].full), Qt::ToolTipRole);
        }
    }
    // Keep the heat map's workload; else show the one with the most addressable time.
    int row = -1;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        if (!previous.isEmpty() && toQString(m_model->workload(r).name) == previous)
            row = r;
    }
    if (row < 0 && previous.isEmpty()) {
        double best = -1;
        for (int r = 0; r < m_model->rowCount(); ++r) {
            if (m_model->projection(r).addressableShare > best) {
                best = m_model->projection(r).addressableShare;
                row = r;
            }
        }
    }
    if (row < 0 && m_model->rowCount() > 0)
        row = 0;
    m_heatRow = -2;  // force a rebuild
    setHeatRow(row);
    updateBounds();
    updateFooter();
    updateBars();
}

// One line per bound across each bar with an estimate: what no kernel, generated or
// hand-written, can beat on this profile, next to what the study's projection expects.
void ProjectionView::updateBounds() {
    for (const auto& [a, all] : m_boundLines) {
        if (a)
            m_bars->removeItem(a);
        if (all)
            m_bars->removeItem(all);
    }
    m_boundLines.clear();
    const QColor fg =
        Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    const QPen solid(fg, 1.6), dashed(fg, 1.0, Qt::DashLine);
    m_boundLegend->setPen(solid);
    m_boundAllLegend->setPen(dashed);
    bool any = false;
    const int n = m_model->rowCount();
    for (int row = 0; row < n; ++row) {
        const auto wh = headroomOf(m_model->workload(row));
        if (!wh->estimated()) {
            m_boundLines.push_back({nullptr, nullptr});
            continue;
        }
        any = true;
        const double key = n - 1 - row;
        auto line = [&](double percent, const QPen& pen) {
            auto* l = new QCPItemLine(m_bars);
            l->setSelectable(false);
            l->setPen(pen);
            l->start->setAxes(m_bars->xAxis, m_bars->yAxis);
            l->end->setAxes(m_bars->xAxis, m_bars->yAxis);
            l->start->setCoords(percent, key - 0.42);
            l->end->setCoords(percent, key + 0.42);
            return l;
        };
        const Headroom& h = *wh->headroom;
        m_boundLines.push_back({line(100.0 * h.categoryHeadroomShare(Category::Addressable), solid),
                                line(100.0 * h.headroomShare(), dashed)});
    }
    for (QCPGraph* g : {m_boundLegend, m_boundAllLegend}) {
        if (any)
            g->addToLegend();
        else
            g->removeFromLegend();
    }
}

std::optional<double> ProjectionView::boundPercent(int row, bool addressableOnly) const {
    if (row < 0 || row >= int(m_boundLines.size()))
        return std::nullopt;
    const QCPItemLine* l =
        addressableOnly ? m_boundLines[size_t(row)].first : m_boundLines[size_t(row)].second;
    if (!l)
        return std::nullopt;
    return l->start->coords().x();
}

// A value label starts right after its bar, so it reads as the bar's; a bound line that crosses
// it is drawn over it (the lines are made after the labels). The axis reaches the lines anyway.
double ProjectionView::labelAnchor(int row) const {
    return m_model->gainPercent(row);
}

// The farthest bound line of any row: the gain axis must show it.
double ProjectionView::farthestBound() const {
    double x = 0;
    for (const auto& [a, all] : m_boundLines)
        for (const QCPItemLine* l : {a, all})
            if (l)
                x = std::max(x, l->start->coords().x());
    return x;
}

void ProjectionView::setHeatRow(int row) {
    if (row == m_heatRow)
        return;
    m_heatRow = row;
    if (row >= 0) {
        const QSignalBlocker block(m_heatWorkload);
        m_heatWorkload->setCurrentIndex(row);
    }
    rebuildHeatMap();
    updateBars();
    updateMarker();
    updateFooter();
}

void ProjectionView::rebuildHeatMap() {
    QCPColorMapData* data = m_map->data();
    const bool valid = m_heatRow >= 0 && m_heatRow < m_model->rowCount();
    const double a = valid ? m_model->projection(m_heatRow).addressableShare : 0.0;
    const ProjectionGrid grid = projectionGrid(a, kHeatCells, 10.0);
    for (int xi = 0; xi < kHeatCells; ++xi) {
        for (int yi = 0; yi < kHeatCells; ++yi)
            data->setCell(xi, yi, valid ? grid.at(xi, yi) : 0.0);
    }
    m_map->setDataRange(QCPRange(0, std::max(valid ? grid.maxGainPercent : 0.0, 0.01)));
    if (valid) {
        m_heatTitle->setText(tr("%1, addressable %2%")
                                 .arg(m_heatWorkload->itemText(m_heatRow))
                                 .arg(100.0 * a, 0, 'f', 1));
    } else {
        m_heatTitle->setText(QString());
    }
    m_heat->replot(QCustomPlot::rpQueuedReplot);
}

QString ProjectionView::footerText() const {
    return m_barsFooter->text();
}

QString ProjectionView::valueLabel(int row) const {
    if (row < 0 || row >= int(m_valueLabels.size()))
        return {};
    return m_valueLabels[size_t(row)]->text();
}

void ProjectionView::updateBars() {
    const int n = m_model->rowCount();
    // Text items are reused: only their positions and strings change while a slider moves.
    while (int(m_valueLabels.size()) < n) {
        auto* t = new QCPItemText(m_bars);
        t->setSelectable(false);
        t->setFont(Theme::plotFont(8));
        t->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        t->setProperty(kScreenOnlyEmphasis, true);  // bold = the heat map's row, on screen
        m_valueLabels.push_back(t);
    }
    while (int(m_valueLabels.size()) > n) {
        m_bars->removeItem(m_valueLabels.back());
        m_valueLabels.pop_back();
    }
    const QColor text =
        Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6) : QColor(0x20, 0x20, 0x20);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys(n), values(n);
    double maxGain = 0;
    for (int row = 0; row < n; ++row) {
        const double key = n - 1 - row;
        const double gain = m_model->gainPercent(row);
        keys[n - 1 - row] = key;
        values[n - 1 - row] = gain;
        maxGain = std::max(maxGain, labelAnchor(row));
        const ProjectWorkload& w = m_model->workload(row);
        if (size_t(row) < m_labels.size())
            ticker->addTick(key, toQString(m_labels[size_t(row)].text()));
        QCPItemText* t = m_valueLabels[size_t(row)];
        // Both bases: of GPU time (the bar) and of the profiled wall clock, with the busy share
        // beside it; a mostly idle GPU is flagged (kLowBusyShare).
        const Projection& p = m_model->projection(row);
        QString label = QString::number(gain, 'f', 2) + QLatin1Char('%');
        if (const auto wall = p.wallSavedShare()) {
            label += tr("  (wall %1%, busy %2%%3)")
                         .arg(100.0 * *wall, 0, 'f', 2)
                         .arg(100.0 * p.wall->busyShare(), 0, 'f', 0)
                         .arg(p.wall->mostlyIdle() ? tr(" \u26a0") : QString());
        } else if (w.published) {
            label += tr("  (published: no span)");
        }
        t->setText(label);
        t->setProperty("reach_full_label", label);
        t->position->setCoords(gain, key);
        t->setColor(text);
        QFont f = t->font();
        f.setBold(row == m_heatRow);
        t->setFont(f);
    }
    m_gainBars->setData(keys, values, true);
    m_bars->yAxis->setTicker(ticker);
    m_bars->yAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    // Room on the right for the value labels; the axis only grows in coarse steps so it does not
    // jitter while a slider is dragged.
    double upper =
        std::max({1.0, std::ceil(maxGain * 1.25 / 2.0) * 2.0, std::ceil(farthestBound() * 1.02)});
    if (m_axisHeld)
        upper = std::max(upper, m_bars->xAxis->range().upper);
    m_baseUpper = upper;
    m_bars->xAxis->setRange(0, upper);
    for (int row = 0; row < n; ++row)
        m_valueLabels[size_t(row)]->position->setCoords(labelAnchor(row) + upper * 0.01,
                                                        n - 1 - row);
    m_bars->replot(QCustomPlot::rpQueuedReplot);
}

// Once the plot knows its size (on screen, or a figure's page): the gain axis reaches far enough
// for the widest value label to end inside the plot; a label too long for any axis (a narrow
// figure) keeps only the gain.
void ProjectionView::fitValueLabels() {
    const double width = m_bars->axisRect()->width();
    if (width <= 0)
        return;
    // Rows closer than a line of the labels' font (a hundred workloads on a screen) would print
    // the values on top of each other: then the bars alone, and the values in the hover and the
    // CSV. It also spares drawing a hundred texts on every slider move.
    if (!m_valueLabels.empty()) {
        const double rowPx =
            std::abs(m_bars->yAxis->coordToPixel(1.0) - m_bars->yAxis->coordToPixel(0.0));
        const bool fit = rowPx >= 0.9 * QFontMetricsF(m_valueLabels.front()->font()).height();
        for (QCPItemText* t : m_valueLabels)
            t->setVisible(fit);
        if (!fit)
            return;
    }
    double upper = m_axisHeld ? std::max(m_baseUpper, m_bars->xAxis->range().upper) : m_baseUpper;
    for (int row = 0; row < int(m_valueLabels.size()) && row < m_model->rowCount(); ++row) {
        QCPItemText* t = m_valueLabels[size_t(row)];
        const double gain = m_model->gainPercent(row);
        const double anchor = labelAnchor(row);
        const QFontMetricsF tm(t->font());
        QString text = t->property("reach_full_label").toString();
        // In a figure the bars keep at least 30 % of the page's width; a label that leaves them
        // less is cut to the gain (on screen the axis makes room instead).
        if (m_bars->property(kExportingProperty).toBool() &&
            width * 0.99 - tm.horizontalAdvance(text) - 8 < width * 0.3)
            text = QString::number(gain, 'f', 2) + QLatin1Char('%');
        t->setText(text);
        const double room = width * 0.99 - tm.horizontalAdvance(text) - 8;
        if (room > 0)
            upper = std::max(upper, anchor * width / room);
    }
    if (upper != m_bars->xAxis->range().upper) {
        m_bars->xAxis->setRange(0, upper);
        for (int row = 0; row < int(m_valueLabels.size()) && row < m_model->rowCount(); ++row) {
            const int n = m_model->rowCount();
            m_valueLabels[size_t(row)]->position->setCoords(labelAnchor(row) + upper * 0.01,
                                                            n - 1 - row);
        }
    }
}

void ProjectionView::updateMarker() {
    const double x = 100.0 * m_model->winRate(), y = std::log10(m_model->medianSpeedup());
    m_marker->setData(QVector<double>{x}, QVector<double>{y}, true);
    const bool valid = m_heatRow >= 0 && m_heatRow < m_model->rowCount();
    m_markerLabel->setVisible(valid);
    if (valid) {
        m_markerLabel->setText(tr("%1%").arg(m_model->gainPercent(m_heatRow), 0, 'f', 2));
        m_markerLabel->position->setCoords(std::min(x + 1.5, 85.0), std::min(y + 0.02, 0.93));
    }
    m_heat->layer(QStringLiteral("cursor"))->replot();
}

void ProjectionView::updateFooter() {
    const RuleSet& rules = m_session->rules();
    QString text = tr("Rule set: %1 (%2)")
                       .arg(QString::fromStdString(rules.name()),
                            QString::fromStdString(rules.hash()).left(12));
    bool anyBound = false;
    for (const auto& lines : m_boundLines)
        anyBound = anyBound || lines.first;
    if (anyBound)
        text +=
            tr("\nLines: GPU time saved if those kernels\nran at their roofline (speed of light)");
    bool anyIdle = false;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const Projection& p = m_model->projection(row);
        anyIdle = anyIdle || (p.wall && p.wall->mostlyIdle());
    }
    if (anyIdle)
        text += tr("\n\u26a0 GPU busy under %1% of the profiled span: faster kernels\nshorten "
                   "only that part of the wall clock")
                    .arg(100.0 * kLowBusyShare, 0, 'f', 0);
    m_barsFooter->setText(text);
}

std::optional<ProjectionView::HeatPoint> ProjectionView::heatPointAt(const QPoint& pos) const {
    if (!m_heat->axisRect()->rect().contains(pos) || m_heatRow < 0 ||
        m_heatRow >= m_model->rowCount())
        return std::nullopt;
    const double x = m_heat->xAxis->pixelToCoord(pos.x());
    const double y = m_heat->yAxis->pixelToCoord(pos.y());
    HeatPoint p;
    p.winRate = std::clamp(x / 100.0, 0.0, 1.0);
    p.median = std::clamp(std::pow(10.0, y), 1.0, 10.0);
    // The formula's one implementation (core), for the row shown.
    const Projection& row = m_model->projection(m_heatRow);
    p.gainPercent =
        100.0 * projectSummary(row.name, row.addressableShare, p.winRate, p.median).savedShare;
    return p;
}

QString ProjectionView::heatTipText(const QPoint& pos) const {
    const auto p = heatPointAt(pos);
    if (!p)
        return {};
    return tr("w = %1%, m = %2\nprojected gain %3% of GPU time\nclick to set the sliders here")
        .arg(100.0 * p->winRate, 0, 'f', 1)
        .arg(formatSpeedup(p->median))
        .arg(p->gainPercent, 0, 'f', 2);
}

void ProjectionView::showHeatTip(const QPoint& pos, const QPoint& global) {
    const QString text = heatTipText(pos);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(global, text, m_heat);
}

bool ProjectionView::pickFromHeatMap(const QPoint& pos) {
    const auto p = heatPointAt(pos);
    if (!p)
        return false;
    m_source = tr("a point picked on the heat map");
    setParameters(p->winRate, p->median);
    syncControls();
    return true;
}

FigureTable ProjectionView::figureData() const {
    FigureTable t =
        projectionFigureTable(m_session->workloads(), m_model->winRate(), m_model->medianSpeedup());
    // The bound lines' numbers beside the projection's (core/headroom; NaN: no estimate).
    t.columns.push_back("sol_bound_addressable_percent_of_gpu_time");
    t.columns.push_back("sol_bound_all_kernels_percent_of_gpu_time");
    for (size_t i = 0; i < t.rows.size() && i < m_session->workloads().size(); ++i) {
        const auto wh = headroomOf(m_session->workloads()[i]);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        t.rows[i].emplace_back(
            std::in_place_type<double>,
            wh->estimated() ? 100.0 * wh->headroom->categoryHeadroomShare(Category::Addressable)
                            : nan);
        t.rows[i].emplace_back(std::in_place_type<double>,
                               wh->estimated() ? 100.0 * wh->headroom->headroomShare() : nan);
    }
    return t;
}

}  // namespace reach
