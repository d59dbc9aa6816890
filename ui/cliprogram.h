#pragma once

#include <QCoreApplication>
#include <QFileInfo>
#include <QString>

namespace reach {

// reach-cli beside the GUI, else on PATH: what the dialogs that drive the command line in a
// child process run (the same code as the command line; the GUI never blocks on it).
inline QString reachCliProgram() {
    const QString here = QCoreApplication::applicationDirPath() + QStringLiteral("/reach-cli");
    return QFileInfo(here).isExecutable() ? here : QStringLiteral("reach-cli");
}

}  // namespace reach
