#include "gpustate.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace reach {

QString GpuState::text() const {
    if (device.isEmpty())
        return QObject::tr("no GPU");
    return QObject::tr("GPU: %1%2")
        .arg(device, verifierFound ? QString() : QObject::tr(" (no reach-verify)"));
}

GpuState detectGpu() {
    GpuState state;
    const QDir gpus(QStringLiteral("/proc/driver/nvidia/gpus"));
    for (const QString& bus : gpus.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile info(gpus.filePath(bus + QStringLiteral("/information")));
        if (!info.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& line : info.readAll().split('\n')) {
            if (line.startsWith("Model:")) {
                state.device = QString::fromUtf8(line.mid(6)).trimmed();
                break;
            }
        }
        if (!state.device.isEmpty())
            break;
    }
    if (state.device.isEmpty() && QFileInfo::exists(QStringLiteral("/dev/nvidia0")))
        state.device = QObject::tr("NVIDIA device");
    const QString appDir =
        QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    state.verifierFound =
        (!appDir.isEmpty() && QFileInfo(appDir + "/reach-verify").isExecutable()) ||
        !QStandardPaths::findExecutable(QStringLiteral("reach-verify")).isEmpty();
    return state;
}

}  // namespace reach
