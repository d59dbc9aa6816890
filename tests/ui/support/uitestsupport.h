#pragma once

// Shared set-up for the ui QtTest suites: deterministic rendering (offscreen platform, 96 dpi,
// one bundled font), private QSettings, and the bundled datasets of this source tree.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
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

// Opens `path` in the session and waits until it is loaded and classified; false with why.
inline bool openAndWait(Session& session, const QString& path, QString* error) {
    if (!session.openProject(path, error))
        return false;
    if (waitIdle(session))
        return true;
    *error = QStringLiteral("%1: still loading after the wait").arg(path);
    return false;
}

// Twelve real traces with long names (public ones and H200 profiles), copied into `into`: the
// folder of issue 25's 1280x720 test and of its 3.5 in figure. Returns the copies' paths.
inline QStringList copyTwelveTraces(const QString& into) {
    const QStringList files = {
        "public/hta_dlrm_sampled_rank0_a100.json.gz",
        "public/hta_simple_add_a100.json.gz",
        "public/hta_triton_example_a100.json.gz",
        "public/pipit_saxpy_nsys_a100.sqlite",
        "public/tracelens_bert_small_h100.json.gz",
        "public/tracelens_sglang_qwen3_8b_decode_mi300x.json.gz",
        "public/tracelens_vllm_decode_graph_mi300x.json.gz",
        "public/tracelens_vllm_moe_b200.json.gz",
        "public/tracelens_vllm_prefilldecode_graph_mi300x.json.gz",
        "h200-current/sdpa_backends_flash.json.gz",
        "h200-current/moe_grouped_gemm_fwdbwd.json.gz",
        "h200-current/fp8_scaled_mm_rowwise.json.gz",
    };
    QStringList out;
    for (const QString& f : files) {
        const QString to = into + QLatin1Char('/') + f.section(QLatin1Char('/'), -1);
        if (QFile::copy(QStringLiteral(REACH_DATASETS "/profiles/") + f, to))
            out << to;
    }
    return out;
}

// A copy of the published study table (datasets/paper/table3.json) written into `dir`, with a
// string where the first "addressable" number belongs: broken input whose error must name the
// file and that key. Returns the copy's path, or an empty string when it could not be written.
inline QString writeBrokenPublishedTable(const QString& dir) {
    QFile real(QStringLiteral(REACH_DATASETS "/paper/table3.json"));
    if (!real.open(QIODevice::ReadOnly))
        return {};
    QByteArray broken = real.readAll();
    const qsizetype at = broken.indexOf("\"addressable\"");
    if (at < 0)
        return {};
    broken.insert(broken.indexOf(':', at) + 1, " \"lots\", \"was\":");
    QFile bad(dir + QStringLiteral("/table3_bad.json"));
    if (!bad.open(QIODevice::WriteOnly) || bad.write(broken) != broken.size())
        return {};
    return bad.fileName();
}

}  // namespace reach::test
