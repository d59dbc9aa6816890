#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

namespace reach {

class MainWindow;

// `reach --snapshot DIR`: waits until the window's background jobs are done (at most
// timeoutMs), then renders every view to DIR/<view>.png at exactly `size` pixels. Used by the
// tests and by anyone checking the GUI on a machine without a display (QT_QPA_PLATFORM=offscreen).
bool writeSnapshots(MainWindow& window, const QString& dir, const QSize& size,
                    QStringList* written = nullptr, QString* error = nullptr,
                    int timeoutMs = 300000);

// Blocks (running the event loop) until the session has no job left or timeoutMs passes.
bool waitUntilIdle(MainWindow& window, int timeoutMs = 240000);

}  // namespace reach
