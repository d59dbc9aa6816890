#include "ui/verify/gpustate.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

namespace reach {

QString GpuState::text() const {
    if (!checked)
        return QObject::tr("checking GPU...");
    if (!verifierFound)
        return QObject::tr("no GPU (reach-verify not found)");
    if (device.isEmpty())
        return QObject::tr("no GPU");
    return QObject::tr("GPU: %1").arg(device);
}

QString noGpuAdvice(const QString& reason) {
    const QString r = reason.toLower();
    QString what;
    if (r.contains(QLatin1String("reach-verify not found")))
        what = QObject::tr(
            "Reach's verifier (reach-verify) is not installed beside Reach: reinstall Reach, or "
            "set REACH_VERIFY to its path.");
    else if (r.contains(QLatin1String("driver version is insufficient")) ||
             r.contains(QLatin1String("no cuda-capable device")) ||
             r.contains(QLatin1String("no cuda device")))
        what = QObject::tr(
            "No NVIDIA GPU with a recent enough driver is visible on this machine, and kernels "
            "are verified on a GPU: run Reach where one is, or send the records to one with "
            "View > Batch Verification (Slurm).");
    else if (r.contains(QLatin1String("without the cuda toolkit")))
        what = QObject::tr(
            "This Reach was built without CUDA, so it cannot verify kernels: use a build with "
            "the CUDA toolkit.");
    else if (r.contains(QLatin1String("checking")))
        return QObject::tr("Reach is still asking the verifier about the GPU.");
    else
        what = QObject::tr("Kernels cannot be verified on this machine.");
    what += QLatin1Char(' ') + QObject::tr("Profiles, records and figures work as usual.");
    if (!reason.isEmpty())
        what += QStringLiteral(" (%1)").arg(reason);
    return what;
}

GpuState gpuStateFromDeviceInfo(const QByteArray& stdoutJson, bool verifierStarted) {
    GpuState s;
    s.checked = true;
    s.verifierFound = verifierStarted;
    if (!verifierStarted) {
        s.reason = QObject::tr("reach-verify not found");
        return s;
    }
    const QJsonObject d = QJsonDocument::fromJson(stdoutJson.trimmed()).object();
    if (d.value(QStringLiteral("available")).toBool()) {
        s.device = d.value(QStringLiteral("name")).toString();
        const QString arch = d.value(QStringLiteral("arch")).toString();
        if (!arch.isEmpty())
            s.device += QStringLiteral(" (%1)").arg(arch);
    } else {
        s.reason = d.value(QStringLiteral("reason")).toString();
        if (s.reason.isEmpty())
            s.reason = QObject::tr("no GPU");
    }
    return s;
}

GpuProbe::GpuProbe(QObject* parent) : QObject(parent) {}

GpuProbe::~GpuProbe() {
    if (!m_process)
        return;
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(2000);
}

void GpuProbe::start(const QString& verifier) {
    m_process = new QProcess(this);
    auto done = [this](bool started) {
        if (!m_process)
            return;
        const QByteArray out = m_process->readAllStandardOutput();
        m_process->deleteLater();
        m_process = nullptr;
        emit finished(gpuStateFromDeviceInfo(out, started));
    };
    connect(m_process, &QProcess::finished, this,
            [done](int, QProcess::ExitStatus) { done(true); });
    connect(m_process, &QProcess::errorOccurred, this, [done](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            done(false);
    });
    // A driver that hangs must not leave the status bar asking forever.
    QTimer::singleShot(20000, this, [this] {
        if (m_process)
            m_process->kill();
    });
    m_process->start(verifier, {QStringLiteral("--device-info")});
}

}  // namespace reach
