#include "ui/views/speedupview.h"

#include <qcustomplot.h>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelection>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "core/base/inputerror.h"
#include "core/project/recordjob.h"
#include "core/project/runconsent.h"
#include "core/records/recordimportverify.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"
#include "core/verify/verification.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/plotrows.h"
#include "ui/qtstrings.h"
#include "ui/theme.h"
#include "ui/verify/gpustate.h"

namespace reach {

namespace {}  // namespace

SpeedupView::SpeedupView(QWidget* parent) : QWidget(parent) {
    m_model = new RecordsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RecordsModel::SortRole);

    QHBoxLayout* bar = createControlBar();
    createPlot();
    createTable();
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("speedupSplitter"));
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_model, &QAbstractItemModel::modelReset, this, &SpeedupView::rebuild);
    connect(m_model, &RecordsModel::recordChanged, this, &SpeedupView::rebuild);
    m_modeBox->setCurrentIndex(0);
    rebuild();
    updateActions();
}

QHBoxLayout* SpeedupView::createControlBar() {
    m_modeBox = new QComboBox(this);
    m_modeBox->addItem(tr("Strip"), int(SpeedupPlot::Mode::Strip));
    m_modeBox->addItem(tr("Histogram"), int(SpeedupPlot::Mode::Histogram));
    m_modeBox->addItem(tr("ECDF"), int(SpeedupPlot::Mode::Ecdf));
    m_modeBox->setToolTip(tr("How the distribution of speedups is drawn"));
    connect(m_modeBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMode(SpeedupPlot::Mode(m_modeBox->itemData(i).toInt())); });
    createReverifyActions();
    auto* reverifyButton = new QToolButton(this);
    reverifyButton->setDefaultAction(m_reverify);
    auto* suspiciousButton = new QToolButton(this);
    suspiciousButton->setDefaultAction(m_reverifySuspicious);
    createQueueStatus();
    createWinThreshold();
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("publishedSummary"));
    m_summary->setWordWrap(true);
    m_summary->setVisible(false);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show as:"), this));
    bar->addWidget(m_modeBox);
    bar->addWidget(m_threshold);
    bar->addSpacing(12);
    bar->addWidget(reverifyButton);
    bar->addWidget(suspiciousButton);
    bar->addWidget(m_gpuLabel);
    bar->addStretch(1);
    bar->addWidget(m_progress);
    bar->addWidget(m_cancel);
    return bar;
}

void SpeedupView::createReverifyActions() {
    m_reverify = new QAction(tr("Re-verify"), this);
    m_reverify->setToolTip(tr("Run reach-verify on the selected records' candidates"));
    connect(m_reverify, &QAction::triggered, this, [this] { reverify(selectedRecords()); });
    m_reverifySuspicious = new QAction(tr("Re-verify all suspicious"), this);
    m_reverifySuspicious->setToolTip(
        tr("Run reach-verify on every record with a suspicion flag or a failed verification"));
    connect(m_reverifySuspicious, &QAction::triggered, this,
            [this] { reverify(m_model->suspiciousRecords()); });
}

void SpeedupView::createQueueStatus() {
    m_gpuLabel = new QLabel(this);
    m_gpuLabel->setObjectName(QStringLiteral("verificationUnavailable"));
    m_gpuLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_gpuLabel->setMinimumWidth(0);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->setVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
}

void SpeedupView::createWinThreshold() {
    // What counts as a win (core StatsOptions::winThreshold): 1x counts any speedup; a little
    // above leaves out what timing noise makes of an unchanged kernel.
    m_threshold = new QDoubleSpinBox(this);
    m_threshold->setObjectName(QStringLiteral("winThreshold"));
    m_threshold->setRange(1.0, 3.0);
    m_threshold->setDecimals(2);
    m_threshold->setSingleStep(0.01);
    m_threshold->setPrefix(tr("win above "));
    m_threshold->setSuffix(QStringLiteral("×"));
    m_threshold->setToolTip(
        tr("A record is a win when it is correct and faster than this "
           "(reach-cli speedups --win-threshold)"));
    m_threshold->setValue(
        QSettings().value(QStringLiteral("speedups/winThreshold"), 1.0).toDouble());
    m_model->setWinThreshold(m_threshold->value());
    connect(m_threshold, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        QSettings().setValue(QStringLiteral("speedups/winThreshold"), v);
        m_model->setWinThreshold(v);
    });
}

void SpeedupView::createPlot() {
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(220);
    m_plot->setMinimumWidth(kPlotMinimumWidth);
    m_plot->setAntialiasedElements(QCP::aeAll);
    connect(m_plot, &QCustomPlot::plottableClick, this, &SpeedupView::onPlottableClick);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString text = tooltipAt(e->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), text, m_plot);
    });
}

void SpeedupView::createTable() {
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RecordsModel::SpeedupColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Right-click: the two re-verify actions, for the selection or every suspicious record.
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        menu.addAction(m_reverify);
        menu.addAction(m_reverifySuspicious);
        menu.exec(m_table->viewport()->mapToGlobal(pos));
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateActions();
        markSelection();
    });
}

void SpeedupView::setMode(SpeedupPlot::Mode mode) {
    m_mode = mode;
    const int i = m_modeBox->findData(int(mode));
    if (i >= 0 && i != m_modeBox->currentIndex())
        m_modeBox->setCurrentIndex(i);
    rebuild();
}

void SpeedupView::refreshStyle() {
    rebuild();
}

void SpeedupView::rebuild() {
    m_builder.build(*m_plot, *m_model, m_mode);
    Theme::stylePlot(m_plot);
    // build() cleared the plot: the selection ring and the empty state are made anew.
    m_selectionMarker = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
    m_selectionMarker->setLineStyle(QCPGraph::lsNone);
    const QColor ink = Theme::mode() == Theme::Mode::Dark ? Qt::white : QColor(0x20, 0x20, 0x20);
    m_selectionMarker->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ink, 2), Qt::NoBrush, 14));
    m_selectionMarker->setSelectable(QCP::stNone);
    m_selectionMarker->removeFromLegend();
    m_selectionMarker->setProperty(kScreenOnlyProperty, true);
    m_emptyText = nullptr;
    showEmptyState();
    markSelection();
}

void SpeedupView::markSelection() {
    if (!m_selectionMarker)
        return;
    std::vector<std::pair<QPointF, RecordRef>> marked;
    for (RecordRef ref : selectedRecords()) {
        if (const auto p = m_builder.pointOf(ref))
            marked.push_back({*p, ref});
    }
    std::stable_sort(marked.begin(), marked.end(),
                     [](const auto& a, const auto& b) { return a.first.x() < b.first.x(); });
    QVector<double> keys, values;
    m_markedRefs.clear();
    for (const auto& [point, ref] : marked) {
        keys << point.x();
        values << point.y();
        m_markedRefs.push_back(ref);
    }
    m_selectionMarker->setData(keys, values, true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SpeedupView::showEmptyState() {
    if (m_model->rowCount() > 0) {
        m_plot->legend->setVisible(true);
        return;
    }
    m_plot->legend->setVisible(false);
    // An empty legend asks for no width, and the layout's column took that as the plot's: the
    // plot shrank to 40 px and cut this text. Out of the layout until there is something to
    // list (the plot's builder puts it back above the plot).
    if (m_plot->legend->layout() == m_plot->plotLayout()) {
        m_plot->plotLayout()->take(m_plot->legend);
        m_plot->plotLayout()->simplify();
    }
    m_emptyText = new QCPItemText(m_plot);
    m_emptyText->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_emptyText->position->setCoords(0.5, 0.5);
    m_emptyText->setPositionAlignment(Qt::AlignCenter);
    m_emptyText->setTextAlignment(Qt::AlignCenter);
    m_emptyText->setColor(Theme::mode() == Theme::Mode::Dark ? QColor(0xe6, 0xe6, 0xe6)
                                                             : QColor(0x20, 0x20, 0x20));
    m_emptyText->setText(
        tr("No evaluation records loaded.\nImport reach-verify outputs, a KernelBench run or a "
           "Reach .jsonl file\n(File > Import, Ctrl+I, or drop them here), or open a .reach "
           "project with record sets."));
    m_emptyText->setProperty(kScreenOnlyProperty, true);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString SpeedupView::emptyText() const {
    return m_emptyText ? m_emptyText->text() : QString();
}

void SpeedupView::showSummary(const QString& text) {
    m_summary->setText(text);
    m_summary->setVisible(!text.isEmpty());
}

QString SpeedupView::summaryText() const {
    return m_summary->isHidden() ? QString() : m_summary->text();
}

QString SpeedupView::tooltipAt(const QPoint& pos) const {
    int index = -1;
    QCPAbstractPlottable* p = m_plot->plottableAt(pos, false, &index);
    if (!p)
        return {};
    if (p == m_selectionMarker) {
        return index >= 0 && index < int(m_markedRefs.size())
                   ? SpeedupPlot::recordTooltip(*m_model, m_markedRefs[size_t(index)])
                   : QString();
    }
    if (m_mode == SpeedupPlot::Mode::Histogram && p != m_builder.suspiciousPlottable()) {
        if (auto* graph = qobject_cast<QCPGraph*>(p)) {
            const double key = graph->keyAxis()->pixelToCoord(pos.x());
            index = int(graph->data()->findEnd(key, false) - graph->data()->constBegin()) - 1;
        }
    }
    const std::vector<RecordRef> refs = m_builder.recordsAt(p, index);
    if (refs.empty())
        return {};
    if (refs.size() == 1)
        return SpeedupPlot::recordTooltip(*m_model, refs.front());
    // A histogram bin: how many, and the first few by name.
    QStringList names;
    for (size_t i = 0; i < refs.size() && i < 5; ++i)
        names << toQString(m_model->record(refs[i]).problemName);
    return tr("%n record(s) in this bin:\n", nullptr, int(refs.size())) +
           names.join(QLatin1Char('\n')) + (refs.size() > 5 ? tr("\n...") : QString()) +
           tr("\nclick to select them");
}

void SpeedupView::setVerifyQueue(VerifyQueue* queue) {
    if (m_queue)
        m_queue->disconnect(this);
    m_queue = queue;
    if (m_queue) {
        connect(m_queue, &VerifyQueue::jobFinished, this, &SpeedupView::applyOutcome);
        connect(m_queue, &VerifyQueue::gpuAvailabilityChanged, this, &SpeedupView::updateActions);
        connect(m_queue, &VerifyQueue::progressChanged, this, [this](int done, int total) {
            m_progress->setRange(0, std::max(total, 1));
            m_progress->setValue(done);
            m_progress->setFormat(tr("verified %1/%2").arg(done).arg(total));
            m_progress->setVisible(m_queue->busy());
            m_cancel->setVisible(m_queue->busy());
        });
        connect(m_queue, &VerifyQueue::idle, this, [this] {
            m_progress->setVisible(false);
            m_cancel->setVisible(false);
        });
        connect(m_cancel, &QPushButton::clicked, m_queue, &VerifyQueue::cancelAll);
    }
    updateActions();
}

void SpeedupView::updateActions() {
    const bool gpu = m_queue && m_queue->gpuAvailable();
    QString why;
    if (!m_queue) {
        why = tr("no verifier configured");
    } else if (!gpu) {
        why = m_queue->gpuReason().isEmpty() ? tr("no GPU") : m_queue->gpuReason();
    }
    // A short word in the bar (it never widens the window); the whole sentence in its tooltip.
    m_gpuLabel->setText(why.isEmpty() ? QString() : tr("Verification unavailable (why?)"));
    m_gpuLabel->setToolTip(why);
    m_reverify->setEnabled(gpu && !selectedRecords().empty());
    m_reverifySuspicious->setEnabled(gpu && !m_model->suspiciousRecords().empty());
    const QString suffix = why.isEmpty() ? QString() : tr(" (unavailable: %1)").arg(why);
    m_reverify->setToolTip(tr("Run reach-verify on the selected records' candidates") + suffix);
    m_reverifySuspicious->setToolTip(tr("Run reach-verify on every suspicious record") + suffix);
}

std::vector<RecordRef> SpeedupView::selectedRecords() const {
    std::vector<RecordRef> out;
    for (const QModelIndex& i : m_table->selectionModel()->selectedRows()) {
        out.push_back(m_model->refForRow(m_proxy->mapToSource(i).row()));
    }
    return out;
}

void SpeedupView::selectRecords(const std::vector<RecordRef>& refs) {
    QItemSelection selection;
    for (RecordRef ref : refs) {
        const int row = m_model->rowFor(ref);
        if (row < 0)
            continue;
        const QModelIndex p = m_proxy->mapFromSource(m_model->index(row, 0));
        selection.select(p, p.siblingAtColumn(RecordsModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(
        selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!selection.isEmpty()) {
        m_table->scrollTo(selection.first().topLeft());
        m_table->selectionModel()->setCurrentIndex(selection.first().topLeft(),
                                                   QItemSelectionModel::NoUpdate);
    }
    emit recordsSelected(refs);
}

void SpeedupView::onPlottableClick(QCPAbstractPlottable* plottable, int dataIndex,
                                   QMouseEvent* event) {
    if (plottable == m_selectionMarker) {
        // The ring sits on top of a selected point: a click on it selects that record.
        if (dataIndex >= 0 && dataIndex < int(m_markedRefs.size()))
            selectRecords({m_markedRefs[size_t(dataIndex)]});
        return;
    }
    if (m_mode == SpeedupPlot::Mode::Histogram && plottable != m_builder.suspiciousPlottable()) {
        // A step covers [edge_i, edge_i+1): the bin is the one left of the click, not the
        // nearest edge QCustomPlot reports.
        if (auto* graph = qobject_cast<QCPGraph*>(plottable); graph && event) {
            const double key = graph->keyAxis()->pixelToCoord(event->pos().x());
            auto end = graph->data()->findEnd(key, false);
            dataIndex = int(end - graph->data()->constBegin()) - 1;
        }
    }
    const std::vector<RecordRef> refs = m_builder.recordsAt(plottable, dataIndex);
    if (!refs.empty())
        selectRecords(refs);
}

std::optional<VerifyJob> SpeedupView::defaultJob(const EvalRecord& r, QString* why) {
    return defaultJob(r, QString(), why);
}

std::optional<VerifyJob> SpeedupView::defaultJob(const EvalRecord& r, const QString& projectPath,
                                                 QString* why) {
    // One resolver for the GUI and `reach-cli verify --record` (core/project/recordjob.h): the
    // files must lie in the records' folder as the user opened them (the project's for a stored
    // record; a stored source path is the project's data, not the user's choice), Reach's
    // resources or a folder the user chose.
    const QSettings settings;
    RecordJobOptions options;
    if (r.storeId != 0)
        options.recordDir = projectPath.isEmpty()
                                ? std::string()
                                : QFileInfo(projectPath).absolutePath().toStdString();
    else if (!r.source.empty())
        options.recordDir = QFileInfo(toQString(r.source)).absolutePath().toStdString();
    for (const QString& d : settings.value(QStringLiteral("verify/trustedDirs")).toStringList())
        options.trustedDirs.push_back(d.toStdString());
    options.kernelBenchDir =
        settings.value(QStringLiteral("verify/kernelbenchDir")).toString().toStdString();
    std::string reason;
    const std::optional<RecordJob> resolved = jobForRecord(r, options, &reason);
    if (!resolved) {
        if (why)
            *why = toQString(reason);
        return std::nullopt;
    }
    // The files, the record's precision and the limits: core/project/recordjob.h's one rule.
    VerifyProcessRequest request = resolved->request;
    setJobTimeout(request, resolved->kernelBenchFormat, std::nullopt);
    VerifyJob job;
    job.problemPath = toQString(request.problemFile);
    job.candidatePath = toQString(request.candidateFile);
    for (const std::string& a : request.extraArgs)
        job.extraArguments << toQString(a);
    job.timeoutMs = int(request.timeoutSeconds * 1000);
    return job;
}

// The code a job runs: the candidate, and a KernelBench-format problem (Python the worker imports).
// A record file names them; before any of them runs for the first time the user sees which files
// they are and may cancel (issue 14). Approvals are kept by the files' SHA-256 in the settings.
bool SpeedupView::consentToRun(const QList<VerifyJob>& jobs) {
    std::vector<std::string> code;
    for (const VerifyJob& j : jobs) {
        code.push_back(QFileInfo(j.candidatePath).absoluteFilePath().toStdString());
        if (j.problemPath.endsWith(QLatin1String(".py")))
            code.push_back(QFileInfo(j.problemPath).absoluteFilePath().toStdString());
    }
    QSettings settings;
    const QString key = QStringLiteral("verify/approvedSources");
    std::set<std::string> approved;
    for (const QString& h : settings.value(key).toStringList())
        approved.insert(h.toStdString());
    RunConsent consent(std::move(approved));
    const std::vector<std::string> fresh = consent.unapproved(code);
    if (fresh.empty())
        return true;
    QStringList files;
    for (const std::string& f : fresh)
        files << toQString(f);
    const bool yes = m_askConsent ? m_askConsent(files) : askToRun(files);
    if (!yes)
        return false;
    consent.approve(fresh);
    QStringList hashes;
    for (const std::string& h : consent.approvedHashes())
        hashes << toQString(h);
    settings.setValue(key, hashes);
    return true;
}

bool SpeedupView::askToRun(const QStringList& files) {
    const int shown = 12;
    QString list = files.mid(0, shown).join(QLatin1Char('\n'));
    if (files.size() > shown)
        list += tr("\n... and %1 more").arg(files.size() - shown);
    QMessageBox box(QMessageBox::Warning, tr("Run new code?"),
                    tr("Re-verify will compile and run %n file(s) that Reach has not run before. "
                       "They run with your rights (see docs/security.md); run them only if you "
                       "trust where they came from.",
                       nullptr, int(files.size())),
                    QMessageBox::Cancel, this);
    box.setDetailedText(files.join(QLatin1Char('\n')));
    box.setInformativeText(list);
    QPushButton* run = box.addButton(tr("Run"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    return box.clickedButton() == run;
}

int SpeedupView::reverify(const std::vector<RecordRef>& refs) {
    if (!m_queue || !m_queue->gpuAvailable()) {
        emit statusMessage(
            tr("Cannot verify: %1").arg(m_queue ? m_queue->gpuReason() : tr("no verifier")));
        return 0;
    }
    QList<VerifyJob> jobs;
    QStringList skipped;
    for (RecordRef ref : refs) {
        QString why;
        std::optional<VerifyJob> job = m_resolver(m_model->record(ref), &why);
        if (!job) {
            skipped << tr("%1: %2").arg(toQString(m_model->record(ref).problemName), why);
            continue;
        }
        job->recordKey = RecordsModel::keyFor(ref);
        jobs << *job;
    }
    if (!jobs.isEmpty() && !consentToRun(jobs)) {
        emit statusMessage(tr("Re-verify cancelled: nothing was run"));
        return 0;
    }
    m_queue->enqueue(jobs);
    if (!skipped.isEmpty()) {
        emit statusMessage(tr("%1 queued, %2 skipped (%3)")
                               .arg(jobs.size())
                               .arg(skipped.size())
                               .arg(skipped.first()));
    } else {
        emit statusMessage(tr("%1 verification job(s) queued").arg(jobs.size()));
    }
    return int(jobs.size());
}

void SpeedupView::applyOutcome(const VerifyOutcome& outcome) {
    const std::optional<RecordRef> ref = m_model->refForKey(outcome.recordKey);
    if (!ref)
        return;
    const QString problem = toQString(m_model->record(*ref).problemName);
    using S = VerifyOutcome::Status;
    if (outcome.status == S::Cancelled) {
        emit statusMessage(tr("%1: verification cancelled").arg(problem));
        return;
    }
    if (outcome.status == S::FailedToStart || outcome.status == S::BadOutput) {
        // Reach's own trouble (no verifier, garbage on stdout), not the candidate's verdict.
        emit statusMessage(tr("%1: %2").arg(problem, outcome.log.section('\n', -1)));
        return;
    }
    const VerificationResult& result = outcome.result;
    if (result.verdict == verdict::kNoGpu) {
        if (m_queue)
            m_queue->setGpuAvailable(false, noGpuAdvice(toQString(result.device.reason)));
        emit statusMessage(tr("%1: no GPU (%2)").arg(problem, toQString(result.device.reason)));
        return;
    }
    // What the verdict means for the record is core's rule (the CLI applies the same one).
    EvalRecord updated = m_model->record(*ref);
    if (!applyVerification(updated, result)) {
        emit statusMessage(
            tr("%1: verifier error: %2")
                .arg(problem,
                     toQString(result.reasons.empty() ? result.log : result.reasons.front())));
        return;
    }
    m_model->setVerification(*ref, updated.verification, updated.verificationReasons,
                             updated.rooflineFloorUs);
    emit statusMessage(tr("%1: %2").arg(problem, toQString(result.verdict)));
    if (!m_projectPath.isEmpty()) {
        try {
            ProjectStore store =
                ProjectStore::open(m_projectPath.toStdString(), ProjectStore::Mode::MustExist);
            storeVerification(store, m_model->record(*ref), result,
                              outcome.stdoutJson.toStdString(), outcome.wallMs);
        } catch (const std::exception& e) {
            emit statusMessage(tr("%1: verdict not stored in %2: %3")
                                   .arg(problem, m_projectPath, QString::fromUtf8(e.what())));
        }
    }
    emit verificationFinished(outcome, m_model->record(*ref));
    updateActions();
}

}  // namespace reach
