#include "ui/dialogs/profiledialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

#include "ui/cliprogram.h"

namespace reach {

namespace {

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<void()>& browse) {
    auto* row = new QWidget(parent);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    auto* b = new QPushButton(QObject::tr("Browse..."), row);
    QObject::connect(b, &QPushButton::clicked, row, browse);
    h->addWidget(b);
    return row;
}

QString percentText(double share) {
    return QString::number(100 * share, 'f', 1) + QStringLiteral(" %");
}

}  // namespace

ProfileDialog::ProfileDialog(QWidget* parent) : QDialog(parent), m_cli(reachCliProgram()) {
    setWindowTitle(tr("Profile a Command"));
    auto* formLayout = new QFormLayout;
    m_python = new QLineEdit(QStringLiteral("python3"), this);
    m_python->setObjectName(QStringLiteral("python"));
    m_python->setToolTip(tr("The interpreter that runs the workload (its PyTorch is profiled)"));
    m_script = new QLineEdit(this);
    m_script->setObjectName(QStringLiteral("script"));
    m_script->setPlaceholderText(tr("train.py"));
    formLayout->addRow(tr("Python:"), m_python);
    formLayout->addRow(tr("Script:"), withBrowse(m_script, this, [this] {
                           const QString f = QFileDialog::getOpenFileName(
                               this, tr("Workload Script"), m_script->text(),
                               tr("Python scripts (*.py);;All files (*)"));
                           if (!f.isEmpty())
                               m_script->setText(f);
                       }));
    m_args = new QLineEdit(this);
    m_args->setObjectName(QStringLiteral("arguments"));
    m_args->setToolTip(
        tr("The script's arguments, split at spaces (\"double quotes\" keep words together)"));
    formLayout->addRow(tr("Arguments:"), m_args);
    m_device = new QComboBox(this);
    m_device->setObjectName(QStringLiteral("device"));
    m_device->addItem(tr("GPU (cuda)"), QStringLiteral("cuda"));
    m_device->addItem(tr("CPU (no GPU time to break down)"), QStringLiteral("cpu"));
    formLayout->addRow(tr("Device:"), m_device);
    m_warmup = new QSpinBox(this);
    m_warmup->setObjectName(QStringLiteral("warmup"));
    m_warmup->setRange(0, 100000);
    m_warmup->setValue(2);
    m_steps = new QSpinBox(this);
    m_steps->setObjectName(QStringLiteral("steps"));
    m_steps->setRange(1, 100000);
    m_steps->setValue(5);
    auto* counts = new QWidget(this);
    auto* countsRow = new QHBoxLayout(counts);
    countsRow->setContentsMargins(0, 0, 0, 0);
    countsRow->addWidget(new QLabel(tr("warm-up"), counts));
    countsRow->addWidget(m_warmup);
    countsRow->addWidget(new QLabel(tr("then profiled"), counts));
    countsRow->addWidget(m_steps);
    countsRow->addStretch(1);
    counts->setToolTip(
        tr("Steps are marked by reach_step(), the script's prof.step() or its "
           "optimizer's steps; a script that marks none is profiled whole"));
    formLayout->addRow(tr("Steps:"), counts);
    m_trace = new QLineEdit(this);
    m_trace->setObjectName(QStringLiteral("trace"));
    m_trace->setPlaceholderText(tr("beside the script, named by date and time"));
    formLayout->addRow(tr("Trace:"), withBrowse(m_trace, this, [this] {
                           const QString f = QFileDialog::getSaveFileName(
                               this, tr("Trace"), m_trace->text(),
                               tr("Gzip-compressed traces (*.json.gz)"));
                           if (!f.isEmpty())
                               m_trace->setText(f);
                       }));

    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("log"));
    m_log->setReadOnly(true);
    m_log->setMinimumHeight(160);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);  // a stranger's file name may be in it

    auto* buttons = new QDialogButtonBox(this);
    m_run = buttons->addButton(tr("Run"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(tr("Cancel Run"), QDialogButtonBox::ActionRole);
    m_cancel->setEnabled(false);
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    connect(m_run, &QPushButton::clicked, this, &ProfileDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ProfileDialog::cancel);
    connect(close, &QPushButton::clicked, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(formLayout);
    layout->addWidget(m_log, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
}

ProfileForm ProfileDialog::form() const {
    ProfileForm f;
    f.python = m_python->text().trimmed();
    f.script = m_script->text().trimmed();
    f.arguments = m_args->text();
    f.device = m_device->currentData().toString();
    f.warmup = m_warmup->value();
    f.steps = m_steps->value();
    f.trace = m_trace->text().trimmed();
    return f;
}

void ProfileDialog::setForm(const ProfileForm& f) {
    m_python->setText(f.python);
    m_script->setText(f.script);
    m_args->setText(f.arguments);
    m_device->setCurrentIndex(std::max(0, m_device->findData(f.device)));
    m_warmup->setValue(f.warmup);
    m_steps->setValue(f.steps);
    m_trace->setText(f.trace);
}

QStringList ProfileDialog::arguments(const ProfileForm& f) {
    QStringList a = {
        QStringLiteral("profile"),  QStringLiteral("--device"), f.device,
        QStringLiteral("--warmup"), QString::number(f.warmup),  QStringLiteral("--steps"),
        QString::number(f.steps)};
    if (!f.trace.isEmpty())
        a << QStringLiteral("--out") << f.trace;
    a << QStringLiteral("--json") << QStringLiteral("--") << f.python << f.script;
    a << QProcess::splitCommand(f.arguments);
    return a;
}

void ProfileDialog::start() {
    if (running())
        return;
    const ProfileForm f = form();
    if (f.python.isEmpty() || f.script.isEmpty()) {
        m_status->setText(tr("Name the interpreter and the script to profile."));
        return;
    }
    delete m_process;
    m_process = new QProcess(this);
    // reach-cli names the trace by date beside where it runs: the script's folder.
    m_process->setWorkingDirectory(QFileInfo(f.script).absolutePath());
    m_pendingErr.clear();
    m_cancelled = false;
    connect(m_process, &QProcess::readyReadStandardError, this, &ProfileDialog::onStderr);
    connect(m_process, &QProcess::finished, this,
            [this](int code, QProcess::ExitStatus) { onFinished(code); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        m_status->setText(tr("Cannot start %1.").arg(m_cli));
        setRunning(false);
        emit finished(-1);
    });
    m_log->clear();
    const QStringList args = arguments(f);
    m_log->appendPlainText(QStringLiteral("reach-cli ") + args.join(QLatin1Char(' ')));
    m_status->setText(tr("Running..."));
    setRunning(true);
    m_process->start(m_cli, args);
}

void ProfileDialog::cancel() {
    if (!running())
        return;
    m_cancelled = true;
    m_status->setText(tr("Cancelling..."));
    // reach-cli's child (the workload) dies with it (it is started with PR_SET_PDEATHSIG).
    m_process->terminate();
    QTimer::singleShot(3000, m_process, [p = m_process] {
        if (p->state() != QProcess::NotRunning)
            p->kill();
    });
}

bool ProfileDialog::running() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString ProfileDialog::log() const {
    return m_log->toPlainText();
}

QString ProfileDialog::status() const {
    return m_status->text();
}

void ProfileDialog::setRunning(bool running) {
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
}

void ProfileDialog::onStderr() {
    m_pendingErr += m_process->readAllStandardError();
    qsizetype nl;
    while ((nl = m_pendingErr.indexOf('\n')) >= 0) {
        m_log->appendPlainText(QString::fromUtf8(m_pendingErr.left(nl)));
        m_pendingErr.remove(0, nl + 1);
    }
}

void ProfileDialog::onFinished(int exitCode) {
    onStderr();
    if (!m_pendingErr.isEmpty())
        m_log->appendPlainText(QString::fromUtf8(m_pendingErr));
    m_pendingErr.clear();
    setRunning(false);
    if (m_cancelled) {
        m_status->setText(tr("Cancelled: the workload was stopped; no trace was kept."));
        emit finished(exitCode);
        return;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(m_process->readAllStandardOutput());
    if (exitCode != 0 || !doc.isObject()) {
        m_status->setText(exitCode == 1 ? tr("The workload failed: see the last line of the log.")
                                        : tr("reach-cli stopped: see the last line of the log."));
        emit finished(exitCode);
        return;
    }
    const QJsonObject o = doc.object();
    const QString trace = o.value(QStringLiteral("trace")).toString();
    m_log->appendPlainText(tr("trace: %1").arg(trace));
    const QJsonObject rec = o.value(QStringLiteral("recording")).toObject();
    m_log->appendPlainText(tr("recording: %1 ATen operator calls, %2 with their input shapes")
                               .arg(rec.value(QStringLiteral("operator_calls")).toInt())
                               .arg(rec.value(QStringLiteral("with_shapes")).toInt()));
    const QJsonObject ex = o.value(QStringLiteral("extraction")).toObject();
    if (!ex.isEmpty())
        m_log->appendPlainText(
            tr("extraction would cover %1 of the addressable time in %2 problem(s)")
                .arg(percentText(
                    ex.value(QStringLiteral("covered_share_of_addressable")).toDouble()))
                .arg(ex.value(QStringLiteral("problems")).toInt()));
    for (const QJsonValue& a : o.value(QStringLiteral("advice")).toArray())
        m_log->appendPlainText(tr("note: %1").arg(a.toString()));
    if (o.value(QStringLiteral("breakdown")).isObject()) {
        m_status->setText(tr("Profiled: %1, opened in the project.").arg(trace));
        emit traceReady(trace);
    } else {
        m_status->setText(tr("Profiled on the CPU: %1. It has no GPU time to open; run it on a "
                             "GPU machine for the breakdown and extraction.")
                              .arg(trace));
    }
    emit finished(exitCode);
}

}  // namespace reach
