#include "ui/mainwindow.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextStream>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/analysis/projection.h"
#include "core/base/csv.h"
#include "core/base/inputerror.h"
#include "core/project/projectsave.h"
#include "ui/abouttext.h"
#include "ui/dialogs/batchdialog.h"
#include "ui/dialogs/comparisondialog.h"
#include "ui/dialogs/guidedialog.h"
#include "ui/dialogs/mappingdialog.h"
#include "ui/dialogs/profiledialog.h"
#include "ui/dialogs/rankrundialog.h"
#include "ui/figure/exportdialog.h"
#include "ui/figure/figureexporter.h"
#include "ui/figure/projectionprovenance.h"
#include "ui/messagebar.h"
#include "ui/models/kernelmodel.h"
#include "ui/models/rulesetmodel.h"
#include "ui/plots/breakdownplot.h"
#include "ui/plots/headroomplot.h"
#include "ui/plots/projectionbarplot.h"
#include "ui/recentfolders.h"
#include "ui/session.h"
#include "ui/theme.h"
#include "ui/verify/gpustate.h"
#include "ui/verify/verifyqueue.h"
#include "ui/views/breakdownview.h"
#include "ui/views/projectbrowser.h"
#include "ui/views/projectionview.h"
#include "ui/views/rooflineview.h"
#include "ui/views/speedupview.h"

// Q_INIT_RESOURCE declares a function and must be used outside any namespace; the resources
// live in the static reach_ui library, so nothing registers them unless asked.
static void initReachResources() {
    Q_INIT_RESOURCE(reach);
}

namespace reach {

namespace {

constexpr int kMaxRecent = 8;

QString csvField(const QString& s) {
    return toQString(reach::csvField(s.toStdString()));  // one quoting rule (core/base/csv.h)
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    initReachResources();
    setWindowTitle(tr("Reach[*]"));
    setWindowIcon(QIcon(QStringLiteral(":/reach/icons/reach.svg")));
    setAcceptDrops(true);
    m_session = new Session(this);
    m_browser = new ProjectBrowser(m_session, this);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_breakdown = new BreakdownView(m_session, this);
    m_projection = new ProjectionView(m_session, this);
    m_speedups = new SpeedupView(this);
    m_roofline = new RooflineView(m_session, this);
    // One verifier queue for the whole window; it runs reach-verify next to this binary.
    m_verifyQueue = new VerifyQueue(this);
    BatchDialog::restoreSlots(m_verifyQueue);  // one worker per configured GPU slot
    m_speedups->setVerifyQueue(m_verifyQueue);
    // One win threshold for every summary of the session (the browser, the projection's
    // preset, the Speedups view).
    m_session->setWinThreshold(m_speedups->winThresholdBox()->value());
    connect(m_speedups->winThresholdBox(), &QDoubleSpinBox::valueChanged, m_session,
            &Session::setWinThreshold);
    addView(
        QStringLiteral("breakdown"), tr("Breakdown"), m_breakdown, m_breakdown->plot(),
        [this] { return m_breakdown->figureData(); }, m_breakdown->model());
    addView(
        QStringLiteral("speedups"), tr("Speedups"), m_speedups, m_speedups->plot(),
        [this] { return SpeedupPlot::dataTable(*m_speedups->model()); }, m_speedups->model());
    addView(
        QStringLiteral("projection"), tr("Projection"), m_projection, m_projection->barPlot(),
        [this] { return m_projection->figureData(); }, m_projection->model());
    addView(
        QStringLiteral("roofline"), tr("Roofline"), m_roofline, m_roofline->plot(),
        [this] { return m_roofline->figureData(); }, nullptr);
    m_headroomFigure = {QStringLiteral("headroom"),
                        tr("Headroom"),
                        m_breakdown,
                        m_breakdown->headroomPlot(),
                        nullptr,
                        [this] { return m_breakdown->headroomPlot()->figureData(); }};
    m_breakdown->headroomPlot()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_breakdown->headroomPlot(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint& pos) {
                QMenu menu(this);
                menu.addAction(tr("Export Headroom Figure..."), this,
                               [this] { onExportFigure(QStringLiteral("headroom")); });
                menu.exec(m_breakdown->headroomPlot()->mapToGlobal(pos));
            });

    setCentralWidget(createCentralArea());

    connect(m_browser, &ProjectBrowser::evaluationSelected, m_projection,
            &ProjectionView::setSelectedEvaluation);
    connect(m_browser, &ProjectBrowser::evaluationSelected, this, &MainWindow::showEvaluation);
    // One click on a workload shows it in every view: its drill-down in the breakdown, its heat
    // map in the projection.
    connect(m_browser, &ProjectBrowser::workloadSelected, this, [this](int index) {
        m_breakdown->selectSegment(index, Category::Addressable);
        m_projection->setHeatRow(index);
        m_roofline->setWorkloadRow(index);
    });
    // A kernel picked on the roofline is selected in the breakdown's drill-down too, and a
    // kernel picked in the drill-down is ringed on the roofline.
    connect(m_roofline, &RooflineView::kernelClicked, this,
            [this](int row, const QString& name, Category category) {
                m_breakdown->selectKernel(row, category, name);
                statusBar()->showMessage(
                    tr("Selected %1 (the Breakdown's drill-down shows it)").arg(name.left(80)),
                    8000);
            });
    connect(m_breakdown->kernelTable()->selectionModel(), &QItemSelectionModel::currentRowChanged,
            this, [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                m_roofline->setWorkloadRow(m_breakdown->selectedRow());
                m_roofline->selectKernel(
                    current.siblingAtColumn(0).data(KernelModel::FullNameRole).toString());
            });
    connect(m_browser, &ProjectBrowser::workloadActivated, this, [this](int index) {
        m_tabs->setCurrentWidget(m_projection);
        m_projection->setHeatRow(index);
    });
    connect(m_session, &Session::evaluationsChanged, this, &MainWindow::updateRecordSets);
    connect(m_speedups, &SpeedupView::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(m_session, &Session::loadError, this,
            [this](const QString& message) { report(MessageLog::Severity::Error, message); });
    connect(m_session, &Session::loadWarning, this,
            [this](const QString& message) { report(MessageLog::Severity::Warning, message); });
    connect(m_session, &Session::projectOpened, this, &MainWindow::onProjectOpened);
    // The title says when something would be lost on quitting ("[*]": Qt's modified mark).
    connect(m_session, &Session::unsavedChanged, this, &QWidget::setWindowModified);
    connect(m_session, &Session::rulesChanged, this, [this] {
        setWindowModified(m_session->hasUnsavedContent() || m_session->hasUnsavedRuleEdits());
    });
    connect(m_session, &Session::mappingNeeded, this, &MainWindow::openMappingDialog);
    connect(m_browser->rulesModel(), &RuleSetModel::editRejected, this,
            [this](const QString& message) { report(MessageLog::Severity::Error, message); });
    connect(m_session, &Session::openFailed, this, [this] {
        if (m_opening)
            // The reason is the error just reported (kept in the bar); this says what it meant.
            report(MessageLog::Severity::Warning,
                   tr("%1: nothing could be read; the open project is unchanged").arg(*m_opening));
        m_opening.reset();
    });

    createMenus();
    createStatusBar();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

// The message bar above the browser and the views; the log is a dock below them (hidden until
// asked for: the bar's "Show Log" or View > Messages).
QWidget* MainWindow::createCentralArea() {
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setObjectName(QStringLiteral("mainSplitter"));
    m_split->addWidget(m_browser);
    m_split->addWidget(m_tabs);
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 4);
    m_messageBar = new MessageBar(this);
    m_log = new MessageLog(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_log);
    m_log->hide();
    connect(m_messageBar, &MessageBar::logRequested, this, [this] {
        m_log->show();
        m_log->raise();
    });
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_messageBar);
    layout->addWidget(m_split, 1);
    return central;
}

void MainWindow::report(MessageLog::Severity severity, const QString& text) {
    m_log->append(severity, text);
    if (severity == MessageLog::Severity::Info)
        statusBar()->showMessage(text, 8000);
    else
        m_messageBar->showMessage(severity, text);
}

// The session shows a new project: only now does it name the window and count as recent.
void MainWindow::onProjectOpened() {
    updateTitle();
    if (!m_opening)
        return;
    const QString path = *m_opening;
    m_opening.reset();
    if (path.isEmpty()) {
        m_speedups->setProjectPath(QString());  // the bundled sample is read-only
        QSettings().setValue(QStringLiteral("project/last"), QString());
        return;
    }
    // Verifier verdicts are stored in the open project (verifications table) from now on.
    const bool isProjectFile = QFileInfo(path).suffix() == QLatin1String("reach");
    m_speedups->setProjectPath(isProjectFile ? QFileInfo(path).absoluteFilePath() : QString());
    rememberRecent(path);
    QSettings().setValue(QStringLiteral("project/last"), QFileInfo(path).absoluteFilePath());
}

void MainWindow::addView(const QString& key, const QString& title, QWidget* widget,
                         QCustomPlot* figure, std::function<FigureTable()> figureData,
                         QAbstractItemModel* data) {
    m_views.push_back({key, title, widget, figure, data, std::move(figureData)});
    m_tabs->addTab(widget, title);
}

QString MainWindow::gpuText() const {
    return m_gpuText;
}

void MainWindow::onProfileCommand() {
    // One dialog for the window's life: its form and its last log stay between uses.
    if (!m_profileDialog) {
        m_profileDialog = new ProfileDialog(this);
        connect(m_profileDialog, &ProfileDialog::traceReady, this,
                [this](const QString& trace) { m_session->importProfiles({trace}); });
    }
    m_profileDialog->show();
    m_profileDialog->raise();
}

void MainWindow::onOpenDistributedRun() {
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open a Distributed Run: the Folder of Its Rank Traces"));
    if (folder.isEmpty())
        return;
    openDistributedRun({folder});
}

RankRunDialog* MainWindow::openDistributedRun(const QStringList& inputs) {
    // A window per run: runs are compared side by side.
    auto* dialog = new RankRunDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Distributed Run: %1").arg(inputs.join(QStringLiteral(", "))));
    dialog->show();
    dialog->setProjection(m_projection->winRate(), m_projection->medianSpeedup());
    dialog->open(inputs, m_session->rules());  // the project's rules, as its breakdowns use
    return dialog;
}

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Project..."), QKeySequence::Open, this, &MainWindow::onOpen);
    file->addAction(tr("Open &Sample Project"), QKeySequence(tr("Ctrl+Shift+O")), this,
                    &MainWindow::openDefault);
    file->addAction(tr("&Import Profiles or Records..."), QKeySequence(tr("Ctrl+I")), this,
                    &MainWindow::onImport);
    QAction* profile =
        file->addAction(tr("&Profile a Command..."), this, [this] { onProfileCommand(); });
    profile->setObjectName(QStringLiteral("profileCommand"));
    QAction* ranks =
        file->addAction(tr("Open a &Distributed Run..."), this, [this] { onOpenDistributedRun(); });
    ranks->setObjectName(QStringLiteral("openDistributedRun"));
    m_recentMenu = file->addMenu(tr("&Recent Files"));
    file->addSeparator();
    file->addAction(tr("&Export Figure..."), QKeySequence(tr("Ctrl+E")), this,
                    [this] { onExportFigure(); });
    file->addAction(tr("Export &Headroom Figure..."), this,
                    [this] { onExportFigure(QStringLiteral("headroom")); });
    file->addAction(tr("Export &Data (CSV)..."), QKeySequence(tr("Ctrl+Shift+E")), this,
                    &MainWindow::onExportData);
    file->addSeparator();
    QAction* save =
        file->addAction(tr("&Save Project"), QKeySequence::Save, this, [this] { saveProject(); });
    save->setObjectName(QStringLiteral("saveProject"));
    file->addAction(tr("Save Project &As..."), QKeySequence::SaveAs, this,
                    [this] { saveProjectAsAsked(); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = edit->addAction(tr("&Undo Rule Edit"), QKeySequence::Undo, m_session,
                                    &Session::undoRuleEdit);
    QAction* redo = edit->addAction(tr("&Redo Rule Edit"), QKeySequence::Redo, m_session,
                                    &Session::redoRuleEdit);
    auto updateHistory = [this, undo, redo] {
        undo->setEnabled(m_session->canUndoRuleEdit());
        redo->setEnabled(m_session->canRedoRuleEdit());
    };
    connect(m_session, &Session::ruleHistoryChanged, this, updateHistory);
    updateHistory();
    edit->addSeparator();
    // Core's suggestions for the kernels no name rule matches (`reach-cli rules suggest`).
    edit->addAction(tr("&Suggest Rules for Unmatched Kernels..."), m_breakdown,
                    &BreakdownView::openRuleSuggestions);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (size_t i = 0; i < m_views.size(); ++i) {
        view->addAction(m_views[i].title, QKeySequence(tr("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { m_tabs->setCurrentIndex(int(i)); });
    }
    // The keyboard walks the tabs too (Ctrl+Tab also works, in the tab widget itself).
    view->addAction(tr("&Next View"), QKeySequence(Qt::CTRL | Qt::Key_PageDown), this, [this] {
        m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count());
    });
    view->addAction(tr("&Previous View"), QKeySequence(Qt::CTRL | Qt::Key_PageUp), this, [this] {
        m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count());
    });
    view->addSeparator();
    QAction* messages = m_log->toggleViewAction();
    messages->setShortcut(QKeySequence(tr("Ctrl+L")));
    view->addAction(messages);
    QAction* dark = view->addAction(tr("&Dark Palette"));
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
    dark->setChecked(Theme::mode() == Theme::Mode::Dark);
    connect(dark, &QAction::toggled, this, &MainWindow::setDark);
    QAction* cancel = view->addAction(tr("&Cancel Background Jobs"));
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setObjectName(QStringLiteral("cancelJobs"));
    // Esc always answers: what it cancels, or that nothing runs (a verification queue's jobs are
    // stopped from the Speedups view).
    connect(cancel, &QAction::triggered, this, [this] {
        if (!m_session->isBusy()) {
            statusBar()->showMessage(tr("No background job to cancel"), 4000);
            return;
        }
        m_session->cancelJobs();
        statusBar()->showMessage(tr("Cancelling the background jobs..."), 4000);
    });
    // Batch verification: the queue's GPU workers, and Slurm batches whose results are imported
    // into the open project (docs/batch.md); the project is reread as they arrive.
    view->addAction(tr("&Batch Verification..."), this, [this] {
        auto* dialog = new BatchDialog(m_verifyQueue, m_session->storePath(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &BatchDialog::projectChanged, this, [this](const QString& project) {
            if (!project.isEmpty() && project == m_session->storePath())
                openPath(project);
        });
        dialog->show();
    });

    // Two workloads compared (core's profile diff, as `reach-cli diff`).
    view->addAction(tr("Compare &Workloads..."), this, [this] {
        auto* dialog = new ComparisonDialog(m_session, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide =
        help->addAction(tr("&Guide"), QKeySequence::HelpContents, this, [this] { showGuide(); });
    guide->setObjectName(QStringLiteral("helpGuide"));
    help->addAction(tr("&About Reach"), this, [this] {
        QMessageBox::about(this, tr("About Reach"), aboutText(m_session->storePath(), m_gpuText));
    });
    rebuildRecentMenu();
}

void MainWindow::createStatusBar() {
    m_jobLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(180);
    m_progress->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setFlat(true);
    m_gpuLabel = new QLabel(this);
    // Until reach-verify answers, verification waits (the queue refuses jobs, the actions say
    // why); the answer arrives in the background.
    m_gpuText = GpuState{}.text();
    m_gpuLabel->setText(m_gpuText);
    m_verifyQueue->setGpuAvailable(false, tr("checking the GPU"));
    auto* probe = new GpuProbe(this);
    connect(probe, &GpuProbe::finished, this, [this](const GpuState& gpu) {
        m_gpuText = gpu.text();
        m_gpuLabel->setText(m_gpuText);
        m_gpuLabel->setToolTip(gpu.available()
                                   ? tr("reach-verify answers: candidates can be verified")
                                   : noGpuAdvice(gpu.reason));
        m_verifyQueue->setGpuAvailable(gpu.available(),
                                       gpu.available() ? QString() : noGpuAdvice(gpu.reason));
        m_gpuChecked = true;
        emit gpuChecked();
    });
    probe->start(m_verifyQueue->program());
    statusBar()->addPermanentWidget(m_jobLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    statusBar()->addPermanentWidget(m_gpuLabel);
    m_jobLabel->hide();
    m_progress->hide();
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, m_session, &Session::cancelJobs);
    connect(m_session, &Session::jobStarted, this, [this](const QString& label) {
        m_errorsAtJobStart = m_log->count(MessageLog::Severity::Error);
        m_jobLabel->setText(label);
        m_progress->setValue(0);
        m_jobLabel->show();
        m_progress->show();
        m_cancel->show();
    });
    connect(m_session, &Session::jobProgress, this,
            [this](double f) { m_progress->setValue(int(f * 1000)); });
    connect(m_session, &Session::idle, this, [this] {
        m_jobLabel->hide();
        m_progress->hide();
        m_cancel->hide();
        // After a failed read the bar says what went wrong; a count would only contradict it.
        if (m_log->count(MessageLog::Severity::Error) == m_errorsAtJobStart)
            statusBar()->showMessage(
                tr("%n workload(s) loaded", nullptr, int(m_session->workloads().size())), 4000);
    });
}

bool MainWindow::openDefault() {
    QString error;
    m_opening = QString();
    if (!m_session->openDefault(&error)) {
        m_opening.reset();
        report(MessageLog::Severity::Error, error);
        return false;
    }
    return true;
}

bool MainWindow::openPath(const QString& path) {
    QString error;
    m_opening = path;
    if (!m_session->openProject(path, &error)) {
        m_opening.reset();
        report(MessageLog::Severity::Error, error);
        return false;
    }
    return true;
}

void MainWindow::importFiles(const QStringList& dropped) {
    // A project among the files is opened first; the other files are imported into it.
    QStringList paths = dropped;
    for (const QString& path : dropped) {
        if (QFileInfo(path).suffix() == QLatin1String("reach")) {
            openPath(path);
            paths.removeAll(path);
            break;
        }
    }
    if (paths.isEmpty())
        return;
    // Profiles, published tables and records files: the session's loader tells them apart.
    // Only what could be opened becomes a recent file.
    QStringList failed;
    auto collect = connect(m_session, &Session::loadError, this,
                           [&failed](const QString& message) { failed << message; });
    // A file that needs a column mapping is no recent file either: reopening it has no mapping.
    auto mapped = connect(m_session, &Session::mappingNeeded, this,
                          [&failed](const QString& path) { failed << path + QLatin1Char(':'); });
    m_session->importProfiles(paths);
    disconnect(collect);
    disconnect(mapped);
    for (const QString& p : paths) {
        const bool refused = std::any_of(failed.begin(), failed.end(), [&p](const QString& m) {
            return m.startsWith(p + QLatin1Char(':'));
        });
        if (!refused)
            rememberRecent(p);
    }
}

// Non-modal, so the window stays usable behind it; the import happens only on OK, through the
// session's mapped import (the CLI's planOpen -> importMapped).
void MainWindow::openMappingDialog(const QString& path) {
    auto* dialog = new MappingDialog(path, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        QString error;
        if (!m_session->importMapped(dialog->path(), dialog->mapping(), &error))
            report(MessageLog::Severity::Error, error);
        else
            report(
                MessageLog::Severity::Info,
                tr("%1: imported with a column mapping").arg(QFileInfo(dialog->path()).fileName()));
    });
    dialog->show();
}

void MainWindow::showGuide(const QString& section) {
    if (!m_guide)
        m_guide = new GuideDialog(this);
    const int index = m_tabs->currentIndex();
    const QString anchor = !section.isEmpty() ? section
                           : index >= 0       ? m_views[size_t(index)].key
                                              : QString();
    m_guide->show();
    m_guide->raise();
    m_guide->activateWindow();
    m_guide->showSection(anchor);
}

void MainWindow::onOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open project"), chooserFolder(QStringLiteral("project")),
        tr("Reach projects and profiles (*.reach *.json *.json.gz *.sqlite);;All files (*)"));
    if (path.isEmpty())
        return;
    rememberChoice(QStringLiteral("project"), path);
    openPath(path);
}

void MainWindow::onImport() {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Import profiles or evaluation records"), chooserFolder(QStringLiteral("import")),
        tr("Profiles (*.json *.json.gz *.sqlite);;Evaluation records (*.jsonl);;All files (*)"));
    if (paths.isEmpty())
        return;
    rememberChoice(QStringLiteral("import"), paths.front());
    importFiles(paths);
}

namespace {

// The unit of a column's raw numbers, from how the view shows them: "53.2%" over a raw 0.532 is
// a fraction of 1, over 53.2 a percent; "12.3 ms" is ms; "1.55x" a ratio. Empty when the column
// shows plain numbers or text.
QString rawUnit(const QAbstractItemModel& model, int column) {
    for (int r = 0; r < model.rowCount(); ++r) {
        const QVariant raw = model.data(model.index(r, column), Qt::UserRole);
        const QString shown = model.data(model.index(r, column)).toString().trimmed();
        if (!raw.isValid() || shown.isEmpty())
            continue;
        bool ok = false;
        if (shown.endsWith(QLatin1Char('%'))) {
            const double v = shown.chopped(1).trimmed().toDouble(&ok);
            if (!ok)
                return QStringLiteral("%");
            return std::abs(v - 100.0 * raw.toDouble()) <= std::abs(v - raw.toDouble())
                       ? QStringLiteral("fraction of 1")
                       : QStringLiteral("%");
        }
        for (const char* unit : {"ms", "us", "s", "x", "GB/s", "TFLOP/s"})
            if (shown.endsWith(QLatin1String(unit)))
                return QLatin1String(unit);
        return {};
    }
    return {};
}

}  // namespace

bool MainWindow::exportData(const QString& given, QString* error, QString* written) const {
    // A name typed without an extension gets the file type's.
    const QString path =
        QFileInfo(given).suffix().isEmpty() ? given + QStringLiteral(".csv") : given;
    if (written)
        *written = path;
    const int index = m_tabs->currentIndex();
    if (index < 0 || !m_views[size_t(index)].data) {
        if (error)
            *error = tr("this view has no data to export");
        return false;
    }
    const QAbstractItemModel* model = m_views[size_t(index)].data;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = tr("%1: cannot write").arg(path);
        return false;
    }
    QTextStream out(&file);
    QStringList header;
    for (int c = 0; c < model->columnCount(); ++c) {
        const QString unit = rawUnit(*model, c);
        const QString name = model->headerData(c, Qt::Horizontal).toString();
        header << csvField(unit.isEmpty() ? name : name + QStringLiteral(" (") + unit + ')');
    }
    out << header.join(QLatin1Char(',')) << '\n';
    // Raw numbers (the model's ValueRole) where a column has them, so the CSV is plottable.
    for (int r = 0; r < model->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < model->columnCount(); ++c) {
            const QVariant raw = model->data(model->index(r, c), Qt::UserRole);
            row << csvField(raw.isValid() ? QString::number(raw.toDouble(), 'g', 10)
                                          : model->data(model->index(r, c)).toString());
        }
        out << row.join(QLatin1Char(',')) << '\n';
    }
    out.flush();
    if (!file.commit()) {
        if (error)
            *error = tr("%1: cannot write").arg(path);
        return false;
    }
    return true;
}

bool MainWindow::exportFigure(const QString& path, QString* error, QStringList* written,
                              QStringList* warnings, const QString& figureKey) const {
    const int index = m_tabs->currentIndex();
    if (figureKey.isEmpty() && (index < 0 || !m_views[size_t(index)].figure)) {
        if (error)
            *error = tr("this view has no figure");
        return false;
    }
    const View& view =
        figureKey == m_headroomFigure.key ? m_headroomFigure : m_views[size_t(index)];
    FigureOptions options;
    ExportDialog::loadSettings(options);
    FigureProvenance provenance;
    provenance.figure = view.key;
    provenance.inputs = m_session->inputFiles();
    provenance.rulesName = QString::fromStdString(m_session->rules().name());
    provenance.rulesHash = QString::fromStdString(m_session->rules().hash());
    // Each row's short label beside its whole name (breakdown, headroom, projection).
    if (view.widget == m_breakdown || view.widget == m_projection)
        provenance.extra["workloads"] = rowLabelsJson(m_session->workloads());
    if (view.widget == m_projection)
        addProjectionProvenance(provenance, *m_projection->model());
    try {
        const FigureExporter::Written out = FigureExporter::exportFigure(
            *view.figure, path, options, provenance, view.figureData());
        if (written)
            *written = {out.figure, out.csv, out.json};
        if (warnings)
            *warnings = out.warnings;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void MainWindow::onExportFigure(const QString& figureKey) {
    ExportDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    dialog.saveSettings();
    const QString pdf = tr("PDF (*.pdf)"), svg = tr("SVG (*.svg)"), png = tr("PNG (*.png)");
    QString filter = pdf;
    // A name proposed: the figure's (the current view's, or the one asked for) in the folder
    // the last figure went to.
    const QString key =
        !figureKey.isEmpty() ? figureKey
        : m_tabs->currentIndex() >= 0 && size_t(m_tabs->currentIndex()) < m_views.size()
            ? m_views[size_t(m_tabs->currentIndex())].key
            : QStringLiteral("figure");
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export figure"),
        chooserFolder(QStringLiteral("export")) + QStringLiteral("/reach_") + key +
            QStringLiteral(".pdf"),
        QStringList{pdf, svg, png}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    rememberChoice(QStringLiteral("export"), path);
    exportFigureAndReport(path,
                          filter == svg   ? FigureFormat::Svg
                          : filter == png ? FigureFormat::Png
                                          : FigureFormat::Pdf,
                          figureKey);
}

bool MainWindow::exportFigureAndReport(QString path, FigureFormat chosen,
                                       const QString& figureKey) {
    // A name typed without an extension gets the chosen type's.
    path = FigureExporter::withDefaultExtension(path, chosen);
    QString error;
    QStringList written, warnings;
    if (!exportFigure(path, &error, &written, &warnings, figureKey)) {
        report(MessageLog::Severity::Error, error);  // in the message bar, as load errors are
        return false;
    }
    for (const QString& w : warnings)
        report(MessageLog::Severity::Warning, w);
    report(MessageLog::Severity::Info,
           tr("Exported %1 (data %2, provenance %3)")
               .arg(written.value(0), QFileInfo(written.value(1)).fileName(),
                    QFileInfo(written.value(2)).fileName()));
    return true;
}

bool MainWindow::saveProject() {
    const QString open = m_session->storePath();
    if (!open.isEmpty() && QFileInfo(open).suffix() == QStringLiteral("reach") &&
        QFileInfo(open).isWritable())
        return saveProjectAndReport(open);
    return saveProjectAsAsked();
}

bool MainWindow::saveProjectAsAsked() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save project"),
                                                      chooserFolder(QStringLiteral("project")),
                                                      tr("Reach project (*.reach)"));
    if (path.isEmpty())
        return false;
    rememberChoice(QStringLiteral("project"), path);
    return saveProjectAndReport(path);
}

bool MainWindow::saveProjectAndReport(QString path) {
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".reach");
    try {
        const SavedProject saved = saveProjectAs(m_session->project(), path.toStdString());
        m_session->adoptStorePath(path);
        updateTitle();
        m_speedups->setProjectPath(path);  // re-verified records are stored there from now on
        report(MessageLog::Severity::Info, tr("Saved %1: %2 workload(s), %3 record set(s)")
                                               .arg(path)
                                               .arg(saved.workloads)
                                               .arg(saved.recordSets));
        for (const std::string& why : saved.leftOut)
            report(MessageLog::Severity::Warning,
                   tr("%1: not stored (%2)").arg(path, toQString(why)));
        return true;
    } catch (const std::exception& e) {
        report(MessageLog::Severity::Error, QString::fromUtf8(e.what()));
        return false;
    }
}

void MainWindow::onExportData() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export data"),
        chooserFolder(QStringLiteral("export")) + QStringLiteral("/reach_data.csv"),
        tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    rememberChoice(QStringLiteral("export"), path);
    QString error, written;
    if (!exportData(path, &error, &written)) {
        report(MessageLog::Severity::Error, error);
        QMessageBox::warning(this, tr("Export data"), error);
        return;
    }
    report(MessageLog::Severity::Info, tr("Exported %1").arg(written));
}

// A set picked in the browser: one with records is selected in the speedup view's table; a
// published summary (no records to draw) is shown as its summary above the plot.
void MainWindow::showEvaluation(int index) {
    const auto& sets = m_session->evaluations();
    if (index < 0 || index >= int(sets.size())) {
        m_speedups->showSummary(QString());
        return;
    }
    const EvaluationSet& set = sets[size_t(index)];
    if (!set.records.empty()) {
        m_speedups->showSummary(QString());
        return;
    }
    QString text = tr("%1: %2 of %3 problems won (%4%)")
                       .arg(toQString(set.name))
                       .arg(set.winners)
                       .arg(set.denominator)
                       .arg(100.0 * set.winRate(), 0, 'f', 1);
    if (set.medianSpeedup)
        text += tr(", median speedup of the winners %1x").arg(*set.medianSpeedup, 0, 'g', 4);
    text += tr(". %1; a published summary has no per-kernel records to plot.")
                .arg(toQString(set.basisText()));
    m_speedups->showSummary(text);
}

void MainWindow::updateRecordSets() {
    // The speedup view shows the sets that carry records; published summaries have none.
    std::vector<RecordSet> sets;
    for (const EvaluationSet& e : m_session->evaluations()) {
        if (!e.records.empty())
            sets.push_back({toQString(e.name), e.records, std::nullopt});
    }
    m_speedups->model()->setSets(std::move(sets));
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("project/recent")).toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("project/recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("project/recent")).toStringList();
    for (const QString& path : recent) {
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (QFileInfo(path).suffix() == QLatin1String("reach") ||
                                QFileInfo(path).isDir())
                                openPath(path);
                            else
                                importFiles({path});
                        })
            ->setToolTip(path);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::setDark(bool dark) {
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
        Theme::apply(*app, dark ? Theme::Mode::Dark : Theme::Mode::Light);
    m_breakdown->refreshStyle();
    m_projection->refreshStyle();
    m_speedups->refreshStyle();
    m_roofline->refreshStyle();
    m_messageBar->update();
    QSettings().setValue(QStringLiteral("ui/dark"), dark);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    // First start: 1440x900, or less on a smaller screen (a 1280x720 laptop, with room for the
    // frame and a panel); a saved geometry replaces it (Qt fits that to the screen).
    QSize first(1440, 900);
    if (const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen())
        first = first.boundedTo(screen->availableGeometry().size() * 0.94);
    resize(first);
    m_split->setSizes({300, 1140});
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_split->restoreState(settings.value(QStringLiteral("window/split")).toByteArray());
    // Every named splitter of the views (browser, breakdown and its drill-down, speedups,
    // projection) comes back where it was left.
    for (QSplitter* s : findChildren<QSplitter*>()) {
        const QByteArray state =
            settings.value(QStringLiteral("splitters/") + s->objectName()).toByteArray();
        if (!s->objectName().isEmpty() && s != m_split && !state.isEmpty())
            s->restoreState(state);
    }
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/split"), m_split->saveState());
    for (QSplitter* s : findChildren<QSplitter*>()) {
        if (!s->objectName().isEmpty() && s != m_split)
            settings.setValue(QStringLiteral("splitters/") + s->objectName(), s->saveState());
    }
    settings.setValue(QStringLiteral("window/tab"), m_tabs->currentIndex());
}

namespace {

// Save / Discard / Cancel about what quitting would lose (objectName: what tests answer).
int askBeforeQuitting(QWidget* parent, const QString& objectName, const QString& title,
                      const QString& text, const QString& question) {
    QMessageBox box(QMessageBox::Question, title, text,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setObjectName(objectName);
    box.setInformativeText(question);
    box.setDefaultButton(QMessageBox::Save);
    return box.exec();
}

}  // namespace

bool MainWindow::confirmDiscardRuleEdits() {
    if (!m_session->hasUnsavedRuleEdits())
        return true;
    switch (askBeforeQuitting(
        this, QStringLiteral("unsavedRulesPrompt"), tr("Unsaved rule edits"),
        tr("The rule set \"%1\" has edits that are not saved in a rule file or a project.")
            .arg(QString::fromStdString(m_session->rules().name())),
        tr("Save them before quitting?"))) {
        case QMessageBox::Discard:
            return true;
        case QMessageBox::Save:
            m_browser->saveRules();
            return !m_session->hasUnsavedRuleEdits();  // the save dialog may be cancelled
        default:
            return false;
    }
}

void MainWindow::updateTitle() {
    setWindowTitle(tr("Reach - %1[*]").arg(m_session->projectName()));
    setWindowModified(m_session->hasUnsavedContent() || m_session->hasUnsavedRuleEdits());
}

bool MainWindow::confirmDiscardChanges() {
    if (!m_session->hasUnsavedContent())
        return confirmDiscardRuleEdits();
    switch (askBeforeQuitting(
        this, QStringLiteral("unsavedProjectPrompt"), tr("Unsaved project"),
        tr("\"%1\" has imports or edits that no project file holds.").arg(m_session->projectName()),
        tr("Save the project before quitting?"))) {
        case QMessageBox::Discard:
            return true;
        case QMessageBox::Save:
            // The project keeps its rules too: saved, nothing is left to ask about.
            return saveProject();
        default:
            return false;
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscardChanges()) {
        event->ignore();
        return;
    }
    saveSettings();
    m_session->cancelJobs();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            paths << url.toLocalFile();
    }
    if (!paths.isEmpty()) {
        importFiles(paths);
        event->acceptProposedAction();
    }
}

}  // namespace reach
