// reach: the Qt workbench. Thin on purpose: everything it shows lives in reach_ui / reach_core.
//   reach                       opens the bundled sample project
//   reach PROJECT               a .reach project, a directory of profiles or one profile
//   reach --snapshot DIR [...]  renders every view to DIR/<view>.png and exits (works offscreen)
#include <QApplication>
#include <QCommandLineParser>
#include <QFont>
#include <QSettings>
#include <algorithm>
#include <cstdio>

#include "core/verify/processguard.h"
#include "ui/mainwindow.h"
#include "ui/snapshot.h"
#include "ui/theme.h"

int main(int argc, char** argv) {
    // It reads verdicts from reach-verify through a pipe: no candidate may write into it.
    reach::guardProcessFromCandidates();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Reach"));
    QApplication::setApplicationName(QStringLiteral("reach"));
    QApplication::setApplicationVersion(QStringLiteral(REACH_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("How much of a real GPU workload can new kernels reach?"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption snapshot(
        QStringLiteral("snapshot"), QStringLiteral("Render every view to DIR/<view>.png and exit."),
        QStringLiteral("DIR"));
    const QCommandLineOption size(QStringLiteral("size"),
                                  QStringLiteral("Snapshot size in pixels (default 1280x800)."),
                                  QStringLiteral("WxH"), QStringLiteral("1280x800"));
    const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    parser.addOption(snapshot);
    parser.addOption(size);
    parser.addOption(dark);
    parser.addPositionalArgument(QStringLiteral("PROJECT"),
                                 QStringLiteral("A .reach project, a directory of profiles or a "
                                                "profile (default: the bundled sample)."),
                                 QStringLiteral("[PROJECT]"));
    parser.process(app);

    const bool snapshotMode = parser.isSet(snapshot);
    QSize snapshotSize;
    if (snapshotMode) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            snapshotSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || snapshotSize.width() < 200 || snapshotSize.height() < 150) {
            std::fprintf(stderr, "reach: --size: expected WxH of at least 200x150, got '%s'\n",
                         qPrintable(parser.value(size)));
            return 2;
        }
        // Snapshots must not depend on the machine: one bundled font, the light palette unless
        // asked, and no restored window state.
        QApplication::setFont(reach::Theme::plotFont(9));
    }
    const bool useDark = parser.isSet(dark) ||
                         (!snapshotMode && QSettings().value(QStringLiteral("ui/dark")).toBool());
    reach::Theme::apply(app, useDark ? reach::Theme::Mode::Dark : reach::Theme::Mode::Light);

    reach::MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        std::fprintf(stderr, "reach: expected at most one PROJECT, got %lld\n",
                     static_cast<long long>(args.size()));
        return 2;
    }
    const bool opened = args.isEmpty() ? window.openDefault() : window.openPath(args.front());
    if (snapshotMode) {
        // A snapshot of a file that cannot be read would be blank PNGs: fail as reach-cli does,
        // with its one-line error (the first one, once every background read has ended).
        if (opened)
            reach::waitUntilIdle(window);
        const auto& log = window.messageLog()->entries();
        const auto error = std::find_if(log.begin(), log.end(), [](const auto& e) {
            return e.severity == reach::MessageLog::Severity::Error;
        });
        if (error != log.end()) {
            std::fprintf(stderr, "%s\n", qPrintable(error->text));
            return 2;
        }
        if (!opened) {
            std::fprintf(
                stderr, "reach: %s: cannot open the project\n",
                qPrintable(args.isEmpty() ? QStringLiteral("bundled sample") : args.front()));
            return 2;
        }
    }

    if (snapshotMode) {
        QStringList written;
        QString error;
        if (!reach::writeSnapshots(window, parser.value(snapshot), snapshotSize, &written,
                                   &error)) {
            std::fprintf(stderr, "reach: --snapshot: %s\n", qPrintable(error));
            return 2;
        }
        for (const QString& path : written)
            std::printf("%s\n", qPrintable(path));
        return 0;
    }
    window.show();
    return app.exec();
}
