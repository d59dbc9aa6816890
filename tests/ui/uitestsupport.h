#pragma once

// Shared set-up for the ui QtTest suites: deterministic rendering (offscreen platform, 96 dpi,
// one bundled font), private QSettings, and the bundled datasets of this source tree.
#include <QApplication>
#include <QElapsedTimer>
#include <QFont>
#include <QStandardPaths>
#include <QTest>

#include "ui/session.h"

namespace reach::test {

inline void setUpDeterministicGui() {
    QStandardPaths::setTestModeEnabled(true);  // never touch the user's settings
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSize(9);
    QApplication::setFont(font);
    qputenv("REACH_DATASETS", REACH_DATASETS);
}

// Runs the event loop until the session has finished its background jobs.
inline bool waitIdle(Session& session, int timeoutMs = 240000) {
    QElapsedTimer timer;
    timer.start();
    // Twice idle in a row: a finished load may start a re-classification.
    int quiet = 0;
    while (timer.elapsed() < timeoutMs) {
        QTest::qWait(20);
        quiet = session.isBusy() ? 0 : quiet + 1;
        if (quiet >= 3)
            return true;
    }
    return false;
}

}  // namespace reach::test
