#include "ui/dialogs/batchdialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/cliprogram.h"
#include "ui/recentfolders.h"
#include "ui/verify/gpustate.h"
#include "ui/verify/verifyqueue.h"

namespace reach {

namespace {

QStringList gpuList(const QString& text) {
    QStringList out;
    for (const QString& g : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!g.trimmed().isEmpty())
            out << g.trimmed();
    return out;
}

// A result line of reach-cli's watcher starts with the verdict (cliverifybatch.cpp resultLine).
bool isResultLine(const QString& line) {
    for (const char* v :
         {"pass ", "fail ", "compile_error", "crashed ", "timeout ", "error ", "no_gpu "})
        if (line.startsWith(QLatin1String(v)))
            return true;
    return false;
}

}  // namespace

BatchDialog::BatchDialog(VerifyQueue* queue, const QString& project, QWidget* parent)
    : QDialog(parent), m_queue(queue), m_project(project), m_cli(defaultCliProgram()) {
    setWindowTitle(tr("Batch Verification"));
    auto* tabs = new QTabWidget(this);
    tabs->addTab(createLocalTab(tabs), tr("This machine"));
    connect(m_queue, &VerifyQueue::slotProgressChanged, this, &BatchDialog::onSlotProgress);
    rebuildSlotBars();
    tabs->addTab(createSlurmTab(tabs), tr("Slurm"));
    connectSlurmButtons();

    m_changed = new QTimer(this);
    m_changed->setSingleShot(true);
    m_changed->setInterval(2000);  // at most one reload of the views every 2 s
    connect(m_changed, &QTimer::timeout, this, [this] { emit projectChanged(m_project); });

    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs);
    layout->addWidget(close);
    resize(640, 520);
}

QWidget* BatchDialog::createLocalTab(QWidget* tabs) {
    // This machine: the queue's workers.
    QSettings settings;
    auto* local = new QWidget(tabs);
    auto* localForm = new QFormLayout;
    m_gpus = new QLineEdit(settings.value(QStringLiteral("verify/gpus")).toString(), local);
    m_gpus->setObjectName(QStringLiteral("gpus"));
    m_gpus->setPlaceholderText(tr("every GPU the verifier sees (one worker), or 0,1,2,..."));
    auto* detect = new QPushButton(tr("Detect"), local);
    auto* gpuRow = new QHBoxLayout;
    gpuRow->addWidget(m_gpus);
    gpuRow->addWidget(detect);
    localForm->addRow(tr("GPUs"), gpuRow);
    m_perGpu = new QSpinBox(local);
    m_perGpu->setRange(1, 16);
    m_perGpu->setValue(settings.value(QStringLiteral("verify/jobsPerGpu"), 1).toInt());
    m_perGpu->setToolTip(
        tr("Jobs at once on each GPU: compiling and checking overlap, timing "
           "never does (one timed run per GPU at a time)"));
    localForm->addRow(tr("Jobs per GPU"), m_perGpu);
    auto* apply = new QPushButton(tr("Apply"), local);
    localForm->addRow(QString(), apply);
    auto* localLayout = new QVBoxLayout(local);
    localLayout->addLayout(localForm);
    localLayout->addWidget(new QLabel(tr("Progress per worker (Re-verify fills them):"), local));
    m_barsLayout = new QVBoxLayout;
    localLayout->addLayout(m_barsLayout);
    localLayout->addStretch();
    connect(apply, &QPushButton::clicked, this, &BatchDialog::applySlots);
    connect(detect, &QPushButton::clicked, this, [this, detect] { detectGpus(detect); });
    return local;
}

void BatchDialog::detectGpus(QPushButton* detect) {
    // The verifier's own count (reach-verify --device-info), in the background: the GUI never
    // links CUDA.
    auto* probe = new QProcess(this);
    detect->setEnabled(false);
    connect(probe, &QProcess::finished, this, [this, probe, detect] {
        const QJsonObject d = QJsonDocument::fromJson(probe->readAllStandardOutput()).object();
        const int n = d.value(QStringLiteral("device_count")).toInt();
        QStringList gpus;
        for (int i = 0; i < n; ++i)
            gpus << QString::number(i);
        if (n > 0)
            m_gpus->setText(gpus.join(QLatin1Char(',')));
        else {
            m_gpus->setPlaceholderText(tr("no GPU here (see the tooltip)"));
            m_gpus->setToolTip(noGpuAdvice(d.value(QStringLiteral("reason")).toString()));
        }
        detect->setEnabled(true);
        probe->deleteLater();
    });
    probe->start(m_queue->program(), {QStringLiteral("--device-info")});
}

QWidget* BatchDialog::createSlurmTab(QWidget* tabs) {
    // Slurm: the project's records as one job array.
    auto* slurm = new QWidget(tabs);
    QFormLayout* slurmForm = createSlurmForm(slurm);
    auto* buttons = new QHBoxLayout;
    m_submit = new QPushButton(tr("Submit"), slurm);
    m_watch = new QPushButton(tr("Watch Folder..."), slurm);
    m_resubmit = new QPushButton(tr("Resubmit Unfinished"), slurm);
    for (QPushButton* b : {m_submit, m_watch, m_resubmit}) {
        b->setEnabled(!m_project.isEmpty());
        buttons->addWidget(b);
    }
    m_slurmStatus = new QLabel(slurm);
    m_log = new QPlainTextEdit(slurm);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    auto* slurmLayout = new QVBoxLayout(slurm);
    slurmLayout->addLayout(slurmForm);
    slurmLayout->addLayout(buttons);
    slurmLayout->addWidget(m_slurmStatus);
    slurmLayout->addWidget(m_log, 1);
    return slurm;
}

QFormLayout* BatchDialog::createSlurmForm(QWidget* slurm) {
    QSettings settings;
    auto* slurmForm = new QFormLayout;
    auto* projectLabel = new QLabel(
        m_project.isEmpty() ? tr("(open a .reach project first)") : QFileInfo(m_project).fileName(),
        slurm);
    slurmForm->addRow(tr("Project"), projectLabel);
    m_selection = new QComboBox(slurm);
    m_selection->addItem(tr("every record"), QStringLiteral("all"));
    m_selection->addItem(tr("suspicious records"), QStringLiteral("suspicious"));
    m_selection->addItem(tr("unverified records"), QStringLiteral("unverified"));
    slurmForm->addRow(tr("Jobs"), m_selection);
    m_partition =
        new QLineEdit(settings.value(QStringLiteral("slurm/partition")).toString(), slurm);
    slurmForm->addRow(tr("Partition"), m_partition);
    m_gres = new QLineEdit(settings.value(QStringLiteral("slurm/gres"), "gpu:1").toString(), slurm);
    slurmForm->addRow(tr("GRES"), m_gres);
    m_time = new QLineEdit(settings.value(QStringLiteral("slurm/time")).toString(), slurm);
    m_time->setPlaceholderText(tr("per task, e.g. 02:00:00"));
    slurmForm->addRow(tr("Time limit"), m_time);
    m_arrayLimit = new QSpinBox(slurm);
    m_arrayLimit->setRange(0, 100000);
    m_arrayLimit->setSpecialValueText(tr("Slurm's choice"));
    slurmForm->addRow(tr("Tasks at once"), m_arrayLimit);
    m_jobsPerTask = new QSpinBox(slurm);
    m_jobsPerTask->setRange(0, 100000);
    m_jobsPerTask->setSpecialValueText(tr("automatic (at most 1000 tasks)"));
    slurmForm->addRow(tr("Jobs per task"), m_jobsPerTask);
    m_directory = new QLineEdit(slurm);
    m_directory->setPlaceholderText(tr("beside the project (every node must read it)"));
    slurmForm->addRow(tr("Batch folder"), m_directory);
    return slurmForm;
}

void BatchDialog::connectSlurmButtons() {
    connect(m_submit, &QPushButton::clicked, this, [this] {
        QSettings s;
        s.setValue(QStringLiteral("slurm/partition"), m_partition->text());
        s.setValue(QStringLiteral("slurm/gres"), m_gres->text());
        s.setValue(QStringLiteral("slurm/time"), m_time->text());
        startSlurm(slurmArguments(form()));
    });
    connect(m_watch, &QPushButton::clicked, this, [this] {
        if (const QStringList a = folderArguments("--slurm-watch"); !a.isEmpty())
            startSlurm(a);
    });
    connect(m_resubmit, &QPushButton::clicked, this, [this] {
        if (const QStringList a = folderArguments("--slurm-resubmit"); !a.isEmpty())
            startSlurm(a);
    });
}

QStringList BatchDialog::folderArguments(const char* option) {
    // The batch folder as typed, else asked for (an empty answer starts nothing).
    QString dir = m_directory->text();
    if (dir.isEmpty())
        dir = QFileDialog::getExistingDirectory(this, tr("Slurm Batch Folder"),
                                                m_project.isEmpty()
                                                    ? chooserFolder(QStringLiteral("slurm"))
                                                    : QFileInfo(m_project).absolutePath());
    if (dir.isEmpty())
        return {};
    rememberChoice(QStringLiteral("slurm"), QFileInfo(dir).absolutePath());
    return {QStringLiteral("verify"),
            QLatin1String(option),
            dir,
            QStringLiteral("--project"),
            m_project,
            QStringLiteral("--poll"),
            QStringLiteral("5")};
}

QString BatchDialog::defaultCliProgram() {
    return reachCliProgram();
}

SlurmForm BatchDialog::form() const {
    SlurmForm f;
    f.project = m_project;
    f.selection = m_selection->currentData().toString();
    f.partition = m_partition->text().trimmed();
    f.gres = m_gres->text().trimmed();
    f.time = m_time->text().trimmed();
    f.arrayLimit = m_arrayLimit->value();
    f.jobsPerTask = m_jobsPerTask->value();
    f.directory = m_directory->text().trimmed();
    return f;
}

QStringList BatchDialog::slurmArguments(const SlurmForm& f) {
    QStringList a{QStringLiteral("verify"),
                  QStringLiteral("--batch"),
                  f.project,
                  QStringLiteral("--project"),
                  f.project,
                  QStringLiteral("--slurm"),
                  QStringLiteral("--gres=") + f.gres};
    if (f.selection == QLatin1String("suspicious"))
        a << QStringLiteral("--suspicious");
    else if (f.selection == QLatin1String("unverified"))
        a << QStringLiteral("--unverified");
    if (!f.partition.isEmpty())
        a << QStringLiteral("--partition") << f.partition;
    if (!f.time.isEmpty())
        a << QStringLiteral("--time") << f.time;
    if (f.arrayLimit > 0)
        a << QStringLiteral("--array-limit") << QString::number(f.arrayLimit);
    if (f.jobsPerTask > 0)
        a << QStringLiteral("--jobs-per-task") << QString::number(f.jobsPerTask);
    if (!f.directory.isEmpty())
        a << QStringLiteral("--slurm-dir") << f.directory;
    a << QStringLiteral("--poll") << QStringLiteral("5");
    return a;
}

void BatchDialog::applySlots() {
    QSettings s;
    s.setValue(QStringLiteral("verify/gpus"), m_gpus->text().trimmed());
    s.setValue(QStringLiteral("verify/jobsPerGpu"), m_perGpu->value());
    m_queue->setWorkerSlots(
        VerifyQueue::workerSlotsFor(gpuList(m_gpus->text()), m_perGpu->value()));
    rebuildSlotBars();
}

void BatchDialog::restoreSlots(VerifyQueue* queue) {
    QSettings s;
    queue->setWorkerSlots(
        VerifyQueue::workerSlotsFor(gpuList(s.value(QStringLiteral("verify/gpus")).toString()),
                                    s.value(QStringLiteral("verify/jobsPerGpu"), 1).toInt()));
}

void BatchDialog::rebuildSlotBars() {
    for (QProgressBar* b : m_bars)
        delete b;
    m_bars.clear();
    // New slots apply when the queue is next idle; the bars show the ones it will use.
    const QList<VerifySlot> slotList =
        VerifyQueue::workerSlotsFor(gpuList(m_gpus->text()), m_perGpu->value());
    for (int i = 0; i < slotList.size(); ++i) {
        auto* bar = new QProgressBar(this);
        bar->setRange(0, 0);
        bar->setValue(0);
        bar->setTextVisible(true);
        bar->setRange(0, 1);
        bar->setFormat(slotList[i].gpu.isEmpty() ? tr("worker %1: idle").arg(i)
                                                 : tr("GPU %1: idle").arg(slotList[i].gpu));
        m_barsLayout->addWidget(bar);
        m_bars << bar;
    }
}

void BatchDialog::onSlotProgress(int slot, const QString& gpu, int done, const QString& key) {
    if (slot < 0 || slot >= m_bars.size())
        return;
    QProgressBar* bar = m_bars[slot];
    const QString who = gpu.isEmpty() ? tr("worker %1").arg(slot) : tr("GPU %1").arg(gpu);
    // Busy: an indeterminate bar; idle: full. The text says how many it has finished.
    bar->setRange(0, key.isEmpty() ? 1 : 0);
    bar->setValue(key.isEmpty() ? 1 : 0);
    bar->setFormat(key.isEmpty() ? tr("%1: %2 done").arg(who).arg(done)
                                 : tr("%1: %2 done, running %3").arg(who).arg(done).arg(key));
}

void BatchDialog::startSlurm(const QStringList& arguments) {
    if (m_process && m_process->state() != QProcess::NotRunning)
        return;
    delete m_process;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::readyRead, this, &BatchDialog::onSlurmOutput);
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
        onSlurmOutput();
        m_slurmStatus->setText(code == 0   ? tr("every job has a result")
                               : code == 1 ? tr("finished: some jobs failed or some tasks ended "
                                                "unfinished (see the log; Resubmit Unfinished)")
                                           : tr("reach-cli stopped: see the last line of the log"));
        for (QPushButton* b : {m_submit, m_watch, m_resubmit})
            b->setEnabled(true);
        emit projectChanged(m_project);
        emit slurmFinished(code);
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_slurmStatus->setText(tr("cannot start %1").arg(m_cli));
            for (QPushButton* b : {m_submit, m_watch, m_resubmit})
                b->setEnabled(true);
            emit slurmFinished(-1);
        }
    });
    for (QPushButton* b : {m_submit, m_watch, m_resubmit})
        b->setEnabled(false);
    m_slurmStatus->setText(tr("running: reach-cli %1").arg(arguments.join(QLatin1Char(' '))));
    m_process->start(m_cli, arguments);
}

void BatchDialog::onSlurmOutput() {
    if (!m_process)
        return;
    m_pendingOut += m_process->readAll();
    qsizetype nl;
    while ((nl = m_pendingOut.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_pendingOut.left(nl));
        m_pendingOut.remove(0, nl + 1);
        m_log->appendPlainText(line);
        const QString dirPrefix = QStringLiteral("batch directory: ");
        if (line.startsWith(dirPrefix))
            m_directory->setText(line.mid(dirPrefix.size()));
        if (isResultLine(line) && !m_changed->isActive())
            m_changed->start();
    }
}

QString BatchDialog::slurmLog() const {
    return m_log->toPlainText();
}

}  // namespace reach
