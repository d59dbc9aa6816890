// reach: the Qt workbench. Thin on purpose: everything it shows lives in reach_ui / reach_core.
//   reach                       opens the bundled sample project
//   reach PROJECT               a .reach project, a directory of profiles or one profile
//   reach --snapshot DIR [...]  renders every view to DIR/<view>.png and exits (works offscreen)
#include <QApplication>
#include <QFile>
#include <QFont>
#include <QSettings>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/args/cliargs.h"
#include "core/verify/processguard.h"
#include "ui/mainwindow.h"
#include "ui/snapshot.h"
#include "ui/theme.h"

namespace {

const char* kUsage =
    "usage: reach [--snapshot DIR [--size WxH]] [--dark] [PROJECT]\n"
    "How much of a real GPU workload can new kernels reach?\n"
    "  PROJECT          a .reach project, a directory of profiles or a profile\n"
    "                   (default: the bundled sample)\n"
    "  --snapshot DIR   render every view to DIR/<view>.png and exit (works offscreen)\n"
    "  --size WxH       the snapshot's size in pixels (default 1280x800)\n"
    "  --dark           the dark palette\n"
    "  -h, --help       this text;  -v, --version  the version\n";

}  // namespace

int main(int argc, char** argv) {
    // It reads verdicts from reach-verify through a pipe: no candidate may write into it.
    reach::guardProcessFromCandidates();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Reach"));
    QApplication::setApplicationName(QStringLiteral("reach"));
    QApplication::setApplicationVersion(QStringLiteral(REACH_VERSION));

    // Qt's own options (-platform, -style, ...) are taken out of argv by QApplication; the rest
    // is read as reach-cli and reach-verify read theirs (app/args/cliargs.h).
    const reach::cli::ArgSpec spec{{"--dark", "--help", "--version"},
                                   {"--snapshot", "--size"},
                                   {{"-h", "--help"}, {"-v", "--version"}},
                                   {"--help", "--version"}};
    std::optional<reach::cli::CliArgs> parsed;
    try {
        parsed.emplace(std::vector<std::string>(argv + 1, argv + argc), spec);
    } catch (const reach::cli::UsageError& e) {
        std::fprintf(stderr, "reach: %s (reach --help lists the options)\n", e.what());
        return 2;
    }
    const reach::cli::CliArgs& cli = *parsed;
    if (cli.flag("--help")) {
        std::printf("%s", kUsage);
        return 0;
    }
    if (cli.flag("--version")) {
        std::printf("reach %s\n", REACH_VERSION);
        return 0;
    }

    const bool snapshotMode = cli.value("--snapshot").has_value();
    const QString sizeText = QString::fromStdString(cli.value("--size").value_or("1280x800"));
    QSize snapshotSize;
    if (snapshotMode) {
        const QStringList wh = sizeText.split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            snapshotSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || snapshotSize.width() < 200 || snapshotSize.height() < 150) {
            std::fprintf(stderr, "reach: --size: expected WxH of at least 200x150, got '%s'\n",
                         qPrintable(sizeText));
            return 2;
        }
        // Snapshots must not depend on the machine: one bundled font, the light palette unless
        // asked, and no restored window state.
        QApplication::setFont(reach::Theme::plotFont(9));
    }
    const bool useDark = cli.flag("--dark") ||
                         (!snapshotMode && QSettings().value(QStringLiteral("ui/dark")).toBool());
    reach::Theme::apply(app, useDark ? reach::Theme::Mode::Dark : reach::Theme::Mode::Light);

    reach::MainWindow window;
    QStringList args;
    for (const std::string& p : cli.positionals())
        args << QFile::decodeName(p.c_str());  // a path, in the locale's encoding
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
        if (!reach::writeSnapshots(window, QFile::decodeName(cli.value("--snapshot")->c_str()),
                                   snapshotSize, &written, &error)) {
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
