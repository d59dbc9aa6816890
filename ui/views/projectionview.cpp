#include "ui/views/projectionview.h"

#include <qcustomplot.h>

#include <QAbstractItemView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "core/base/inputerror.h"
#include "core/project/workloadheadroom.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/projectionbarplot.h"
#include "ui/plots/projectionheatplot.h"
#include "ui/recentfolders.h"
#include "ui/session.h"

namespace reach {

namespace {

struct Preset {
    const char* label;
    double winRate, median;
};
// The study's two benchmark summaries (DOMAIN.md), at the win rates its projections used.
constexpr Preset kPresets[] = {
    {"KernelBench L1 frontier: 22/56, 1.235x", 22.0 / 56.0, 1.235},
    {"DLRM-Bench: 5/12 (0.417), 1.552x", kDlrmBenchWinRate, kDlrmBenchMedianSpeedup}};

// The presets' benchmarks, named on the heat map by what precedes the colon.
std::vector<ProjectionHeatPlot::Reference> heatReferences() {
    std::vector<ProjectionHeatPlot::Reference> out;
    for (const Preset& p : kPresets)
        out.push_back({QString(p.label).section(QLatin1Char(':'), 0, 0), p.winRate, p.median});
    return out;
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
    m_bars = new ProjectionBarPlot(m_model, this);
    connect(m_model, &ProjectionModel::exactChanged, m_bars, &ProjectionBarPlot::updateBars);
    m_heat = new ProjectionHeatPlot(m_model, heatReferences(), this);
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
    // The workload's own benchmark, one button wide (the view keeps its minimum width): the
    // exact projection from its benchmark folder and the verified results of its problems
    // (reach-cli extract, verify), and what putting the kernels back measured (reach-cli
    // integrate --json, saved).
    auto* exact = new QPushButton(tr("Exact projection"), this);
    exact->setObjectName(QStringLiteral("exactProjection"));
    exact->setToolTip(tr("Projected and measured from the workload's own benchmark"));
    auto* menu = new QMenu(exact);
    QAction* fromBenchmark = menu->addAction(tr("From its benchmark and verify results..."));
    fromBenchmark->setObjectName(QStringLiteral("exactFromBenchmark"));
    fromBenchmark->setToolTip(
        tr("Each verified kernel applied to exactly the trace kernels its problem stands for"));
    connect(fromBenchmark, &QAction::triggered, this, &ProjectionView::onExactProjection);
    // A published row has shares only, no kernels a benchmark's problems could stand for: the
    // action says so instead of opening a folder chooser that can only end in an error.
    connect(menu, &QMenu::aboutToShow, this, [this, fromBenchmark] {
        const int row = m_heat->row();
        const bool profiled =
            row >= 0 && row < m_model->rowCount() && m_model->workload(row).breakdown;
        fromBenchmark->setEnabled(profiled);
        fromBenchmark->setText(profiled ? tr("From its benchmark and verify results...")
                                        : tr("From its benchmark (pick a profiled workload: a "
                                             "published row has no kernels)"));
    });
    QAction* integration = menu->addAction(tr("Measured: an integration run..."));
    integration->setObjectName(QStringLiteral("integrationRun"));
    integration->setToolTip(
        tr("The GPU time the verified kernels saved when put back into the "
           "workload (reach-cli integrate), beside the projections"));
    connect(integration, &QAction::triggered, this, &ProjectionView::onIntegrationRun);
    menu->addSeparator();
    QAction* clear = menu->addAction(tr("Remove the exact and measured bars"));
    clear->setObjectName(QStringLiteral("clearOverlays"));
    connect(clear, &QAction::triggered, this, [this] { m_model->clearOverlays(); });
    connect(menu, &QMenu::aboutToShow, this,
            [this, clear] { clear->setEnabled(m_model->anyExact() || m_model->anyMeasured()); });
    exact->setMenu(menu);
    presetRow->addWidget(exact);
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

void ProjectionView::createLayout(QFormLayout* form) {
    // One line under the plots, whatever the data: at 1280x720 a paragraph here took the bars'
    // height after one slider step (issue 40). It never widens the window; the tooltip and the
    // panel hold all of it.
    m_currentPoint = new QLabel(this);
    m_currentPoint->setTextFormat(Qt::PlainText);
    m_currentPoint->setObjectName(QStringLiteral("currentPoint"));
    m_currentPoint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_details = new QToolButton(this);
    m_details->setObjectName(QStringLiteral("assumptionsToggle"));
    m_details->setCheckable(true);
    m_details->setAutoRaise(true);
    m_details->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_details->setArrowType(Qt::RightArrow);
    m_details->setText(tr("Assumptions"));
    m_details->setToolTip(tr("The projection's assumptions and what the lines mean"));
    m_assumptions = new QLabel(this);
    m_assumptions->setWordWrap(true);
    m_assumptions->setTextFormat(Qt::PlainText);
    m_assumptions->setObjectName(QStringLiteral("assumptions"));
    // Opened, the panel is at most five lines high and scrolls: the plots keep a line per row.
    auto* panel = new QScrollArea(this);
    panel->setObjectName(QStringLiteral("assumptionsPanel"));
    panel->setWidget(m_assumptions);
    panel->setWidgetResizable(true);
    panel->setFrameShape(QFrame::NoFrame);
    panel->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    panel->setMaximumHeight(m_assumptions->fontMetrics().lineSpacing() * 5 + 4);
    panel->setVisible(false);
    connect(m_details, &QToolButton::toggled, this, [this, panel](bool open) {
        m_details->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        panel->setVisible(open);
    });
    auto* pointRow = new QHBoxLayout;
    pointRow->addWidget(m_details);
    pointRow->addWidget(m_currentPoint, 1);

    auto* plots = new QSplitter(Qt::Horizontal, this);
    plots->setObjectName(QStringLiteral("projectionSplitter"));
    plots->addWidget(m_bars);
    plots->addWidget(m_heat);
    plots->setStretchFactor(0, 3);
    plots->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(plots, 1);
    layout->addLayout(pointRow);
    layout->addWidget(panel);
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
                QCPBars* bars = m_bars->gainBars();
                if (i >= 0 && i < bars->dataCount())
                    setHeatRow(m_model->rowCount() - 1 - qRound(bars->data()->at(i)->key));
            });
    connect(m_session, &Session::workloadsChanged, this, &ProjectionView::onWorkloadsChanged);
    // Another project: the last one's benchmark and integration runs are not its.
    connect(m_session, &Session::projectOpened, m_model, &ProjectionModel::clearOverlays);

    // While a slider is held, the gain axis only grows: the bars do not rescale under the
    // cursor. Released, it fits the values again.
    for (QSlider* slider : {m_winSlider, m_medianSlider}) {
        connect(slider, &QSlider::sliderPressed, this, [this] { m_bars->setAxisHeld(true); });
        connect(slider, &QSlider::sliderReleased, this, [this] { m_bars->setAxisHeld(false); });
    }
    connect(m_heat, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent* e) { showHeatTip(e->pos(), e->globalPosition().toPoint()); });
    connect(m_heat, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { pickFromHeatMap(e->pos()); });
    connect(m_session, &Session::rulesChanged, this, &ProjectionView::updateFooter);
    // A bar's whole name and values on hover (the axis shows the short label; with many rows
    // the values are not printed).
    connect(m_bars, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString text = m_bars->hoverText(m_bars->rowAt(e->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), text, m_bars);
    });
}

QCPBars* ProjectionView::gainBars() const {
    return m_bars->gainBars();
}

QCPGraph* ProjectionView::boundLegend(bool addressableOnly) const {
    return m_bars->boundLegend(addressableOnly);
}

void ProjectionView::refreshStyle() {
    m_bars->refreshStyle();
    m_heat->refreshStyle();
}

void ProjectionView::syncControls() {
    const QSignalBlocker b1(m_winSlider), b2(m_winSpin), b3(m_medianSlider), b4(m_medianSpin);
    m_winSlider->setValue(int(std::lround(m_model->winRate() * 1000)));
    m_winSpin->setValue(100.0 * m_model->winRate());
    m_medianSlider->setValue(sliderFromMedian(m_model->medianSpeedup()));
    m_medianSpin->setValue(m_model->medianSpeedup());
    const QString point = tr("Current point: w = %1%, m = %2, from %3.")
                              .arg(100.0 * m_model->winRate(), 0, 'f', 1)
                              .arg(ProjectionHeatPlot::speedupText(m_model->medianSpeedup()))
                              .arg(m_source);
    const QString idle = idleWarnings();
    const int idleCount = int(idle.count(QLatin1Char('\n')));
    m_currentPoint->setText(
        idleCount == 0
            ? point
            : point + tr("  \u26a0 %n workload(s) with a mostly idle GPU (see Assumptions).", "",
                         idleCount));
    m_currentPoint->setToolTip(point + idle);
    m_assumptions->setText(point + QLatin1Char(' ') +
                           QString::fromStdString(projectionAssumptions()) +
                           tr(" The bold value is the workload shown in the heat map.") +
                           tr(" The lines across a bar are the speed-of-light bound: the GPU time "
                              "saved if the addressable kernels (solid) or all kernels (dashed) "
                              "ran at their roofline; no kernel, generated or hand-written, saves "
                              "more on this profile.") +
                           idle);
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
    m_bars->updateBars();
    m_heat->updateMarker();
}

bool ProjectionView::applyPreset(int preset) {
    if (preset >= 0 && preset < int(std::size(kPresets))) {
        const Preset& p = kPresets[preset];
        m_source = tr("preset %1 (published summary)").arg(QString::fromUtf8(p.label));
        setParameters(p.winRate, p.median);
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
    const int shown = m_heat->row();
    const QString previous = shown >= 0 && shown < m_model->rowCount()
                                 ? toQString(m_model->workload(shown).name)
                                 : QString();
    m_model->setWorkloads(m_session->workloads());
    m_bars->setRows();
    updateFooter();
    syncControls();  // the line under the plots counts the idle GPUs of these rows
    {
        const QSignalBlocker block(m_heatWorkload);
        m_heatWorkload->clear();
        // The axis's short labels, the full name and device in the tooltip.
        const std::vector<RowLabel> labels = rowLabels(m_session->workloads());
        for (int r = 0; r < m_model->rowCount() && r < int(labels.size()); ++r) {
            m_heatWorkload->addItem(toQString(labels[size_t(r)].text()));
            m_heatWorkload->setItemData(r, toQString(labels[size_t(r)].full), Qt::ToolTipRole);
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
    showHeatRow(row);  // even the same row: its numbers are new
}

std::optional<double> ProjectionView::boundPercent(int row, bool addressableOnly) const {
    return m_bars->boundPercent(row, addressableOnly);
}

void ProjectionView::setHeatRow(int row) {
    if (row != m_heat->row())
        showHeatRow(row);
}

void ProjectionView::showHeatRow(int row) {
    if (row >= 0) {
        const QSignalBlocker block(m_heatWorkload);
        m_heatWorkload->setCurrentIndex(row);
    }
    m_heat->setRow(row, m_heatWorkload->itemText(row));
    m_bars->setEmphasizedRow(row);
}

QString ProjectionView::footerText() const {
    return m_bars->footerText();
}

QString ProjectionView::valueLabel(int row) const {
    return m_bars->valueLabel(row);
}

void ProjectionView::updateFooter() {
    const RuleSet& rules = m_session->rules();
    m_bars->setRuleSet(QString::fromStdString(rules.name()), QString::fromStdString(rules.hash()));
}

QString ProjectionView::heatTipText(const QPoint& pos) const {
    const auto p = m_heat->pointAt(pos);
    if (!p)
        return {};
    return tr("w = %1%, m = %2\nprojected gain %3% of GPU time\nclick to set the sliders here")
        .arg(100.0 * p->winRate, 0, 'f', 1)
        .arg(ProjectionHeatPlot::speedupText(p->median))
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
    const auto p = m_heat->pointAt(pos);
    if (!p)
        return false;
    m_source = tr("a point picked on the heat map");
    setParameters(p->winRate, p->median);
    syncControls();
    return true;
}

FigureTable ProjectionView::figureData() const {
    return m_bars->figureData();
}

bool ProjectionView::attachBenchmark(int row, const QString& dir, const QStringList& records,
                                     QString* error, QStringList* warnings) {
    if (row < 0 || row >= m_model->rowCount() || !m_model->workload(row).breakdown) {
        if (error)
            *error =
                tr("The exact projection needs a profiled workload (a published table has "
                   "no kernels).");
        return false;
    }
    if (records.isEmpty()) {
        if (error)
            *error = tr("Choose the verify results of the benchmark's problems.");
        return false;
    }
    std::vector<std::string> paths;
    for (const QString& r : records)
        paths.push_back(r.toStdString());
    std::vector<std::string> notCounted;
    try {
        // One path with reach-cli figure projection --benchmark: the model's.
        m_model->attachBenchmark(dir.toStdString(), paths, row, &notCounted);
    } catch (const InputError& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    if (warnings)
        for (const std::string& w : notCounted)
            warnings->push_back(QString::fromStdString(w));
    return true;
}

void ProjectionView::onExactProjection() {
    const int row = m_heat->row();
    if (row < 0 || row >= m_model->rowCount() || !m_model->workload(row).breakdown) {
        QMessageBox::information(this, tr("Exact projection"),
                                 tr("Pick a profiled workload for the heat map first."));
        return;
    }
    const QString name = toQString(m_model->workload(row).name);
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("The benchmark folder of %1 (reach-cli extract, or Make benchmark...)").arg(name),
        chooserFolder(QStringLiteral("benchmark")));
    if (dir.isEmpty())
        return;
    rememberChoice(QStringLiteral("benchmark"), QFileInfo(dir).absolutePath());
    const QStringList records = QFileDialog::getOpenFileNames(
        this, tr("Verify results of its problems"), dir,
        tr("reach-verify results (*.json *.jsonl);;Reach projects (*.reach)"));
    if (records.isEmpty())
        return;
    QString error;
    QStringList warnings;
    if (!attachBenchmark(row, dir, records, &error, &warnings))
        QMessageBox::warning(this, tr("No exact projection"), error);
    else if (!warnings.isEmpty())
        QMessageBox::information(this, tr("Exact projection"), warnings.join(QStringLiteral("\n")));
}

bool ProjectionView::attachIntegration(const QString& document, QString* error) {
    try {
        m_model->attachIntegration(document.toStdString());
    } catch (const InputError& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

void ProjectionView::onIntegrationRun() {
    const QString document = QFileDialog::getOpenFileName(
        this, tr("An integration run (reach-cli integrate --json, saved)"),
        chooserFolder(QStringLiteral("integration")), tr("JSON (*.json)"));
    if (document.isEmpty())
        return;
    rememberChoice(QStringLiteral("integration"), document);
    QString error;
    if (!attachIntegration(document, &error))
        QMessageBox::warning(this, tr("No integration run"), error);
}

}  // namespace reach
