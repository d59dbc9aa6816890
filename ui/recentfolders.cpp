#include "ui/recentfolders.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace reach {

namespace {
const QString kAnyPurpose = QStringLiteral("chooser/lastDir");
}

QString chooserFolder(const QString& purpose) {
    QSettings settings;
    for (const QString& key : {purpose + QStringLiteral("/dir"), kAnyPurpose}) {
        const QString dir = settings.value(key).toString();
        if (!dir.isEmpty() && QFileInfo(dir).isDir())
            return dir;
    }
    return QDir::homePath();
}

void rememberChoice(const QString& purpose, const QString& chosen) {
    if (chosen.isEmpty())
        return;
    const QFileInfo info(chosen);
    const QString dir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    QSettings settings;
    settings.setValue(purpose + QStringLiteral("/dir"), dir);
    settings.setValue(kAnyPurpose, dir);
}

}  // namespace reach
