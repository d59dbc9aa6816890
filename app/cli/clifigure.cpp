// reach-cli figure {breakdown|speedups|projection} INPUTS... --out F.{pdf,svg,png} [--dpi N]
//   [--width-in W | --width-mm W] [--height-in H] [--font-pt P] [--font FAMILY]
//   [--win-rate W --median M] [--rules R.json] [--mode strip|histogram|ecdf] [--baseline F ...]
//   [--denominator N] [--degenerate F] [--json]
// Headless figure export: the same plot code as the GUI (ui/), rendered by FigureExporter on the
// offscreen platform. Built only when the GUI is (reach-cli links reach_ui for this command).
#include <QApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ostream>

#include "cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "core/analysis/projection.h"
#include "core/records/recordreader.h"
#include "core/records/suspicion.h"
#include "ui/breakdownview.h"
#include "ui/figureexporter.h"
#include "ui/projectionview.h"
#include "ui/recordsmodel.h"
#include "ui/session.h"
#include "ui/speedupplot.h"

namespace reach::cli {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

// QCustomPlot is a widget: it needs a QApplication, and one without a display uses the offscreen
// platform. The application lives for the rest of the process (one command per process).
void ensureApplication() {
    if (QApplication::instance())
        return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    static int argc = 1;
    static char name[] = "reach-cli";
    static char* argv[] = {name, nullptr};
    static QApplication* app = new QApplication(argc, argv);
    (void)app;
}

// Loads profiles (or a .reach project, or a folder of profiles) into a GUI session and waits for
// the background readers; the bundled sample when no input is given.
void loadSession(Session& session, const std::vector<std::string>& inputs,
                 const std::optional<std::string>& rulesPath) {
    QStringList errors;
    QObject::connect(&session, &Session::loadError,
                     [&errors](const QString& message) { errors << message; });
    std::optional<RuleSet> rules;
    if (rulesPath) {
        rules = loadRules(rulesPath);
        session.setRules(*rules, false);  // before anything loads: every profile classified once
    }
    if (inputs.empty()) {
        QString error;
        if (!session.openDefault(&error))
            throw UsageError(error.toStdString());
    } else {
        QStringList profiles;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const QFileInfo info(qs(inputs[i]));
            if (!info.exists()) {
                requireReadableFile(inputs[i],
                                    "a profile, a folder of profiles or a .reach project");
            }
            if (i == 0 && (info.isDir() || info.suffix() == QLatin1String("reach"))) {
                QString error;
                if (!session.openProject(info.absoluteFilePath(), &error)) {
                    throw UsageError(error.toStdString());
                }
            } else {
                requireReadableFile(inputs[i], "a profile");
                profiles << info.absoluteFilePath();
            }
        }
        session.importProfiles(profiles);
    }
    // Opening a .reach project restores the rules it was last used with; --rules still wins.
    if (rules && session.rules().hash() != rules->hash())
        session.setRules(*rules, false);
    if (session.isBusy()) {
        QEventLoop loop;
        QObject::connect(&session, &Session::idle, &loop, &QEventLoop::quit);
        QTimer::singleShot(600000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (!errors.isEmpty())
        throw UsageError(errors.first().toStdString());
}

struct FigureArgs {
    std::string kind;
    std::vector<std::string> inputs;
    QString out;
    FigureOptions options;
};

int runFigure(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto baselines = takeRepeated(remaining, "--baseline");
    const CliArgs args(remaining,
                       {{"--json"},
                        {"--out", "--dpi", "--width-in", "--width-mm", "--height-in", "--height-mm",
                         "--font-pt", "--font", "--win-rate", "--median", "--rules", "--mode",
                         "--denominator", "--degenerate", "--threshold"}});
    if (args.positionals().empty()) {
        throw UsageError("which figure? expected breakdown, speedups or projection");
    }
    FigureArgs fa;
    fa.kind = args.positionals()[0];
    if (fa.kind != "breakdown" && fa.kind != "speedups" && fa.kind != "projection") {
        throw UsageError("unknown figure '" + fa.kind +
                         "': expected breakdown, speedups or projection");
    }
    fa.inputs.assign(args.positionals().begin() + 1, args.positionals().end());
    const auto out = args.value("--out");
    if (!out)
        throw UsageError("--out F.pdf|F.svg|F.png is required");
    fa.out = qs(*out);
    FigureExporter::formatFromPath(fa.out);  // a bad extension fails before any work
    FigureOptions& o = fa.options;
    if (auto w = args.number("--width-in", 0.5, 40))
        o.widthIn = *w;
    if (auto w = args.number("--width-mm", 13, 1000))
        o.widthIn = FigureOptions::mmToIn(*w);
    if (auto h = args.number("--height-in", 0.5, 40))
        o.heightIn = *h;
    if (auto h = args.number("--height-mm", 13, 1000))
        o.heightIn = FigureOptions::mmToIn(*h);
    if (auto d = args.integer("--dpi", 30, 2400))
        o.dpi = int(*d);
    if (auto p = args.number("--font-pt", 4, 72))
        o.style.fontPt = *p;
    if (auto f = args.value("--font"))
        o.style.fontFamily = qs(*f);

    ensureApplication();
    FigureProvenance prov;
    prov.figure = qs(fa.kind);
    FigureExporter::Written written;

    if (fa.kind == "speedups") {
        if (fa.inputs.empty())
            throw UsageError("speedups: give one or more records files");
        RecordReadOptions read;
        for (const auto& b : baselines)
            read.kernelBench.baselines.push_back({b});
        std::vector<RecordSet> sets;
        for (const std::string& path : fa.inputs) {
            requireReadableFile(path, "a records file");
            read.kernelBench.model = QFileInfo(qs(path)).completeBaseName().toStdString();
            RecordSet set;
            set.name = QFileInfo(qs(path)).completeBaseName();
            set.records = readRecords(path, read);
            if (auto d = args.integer("--denominator", 1, 1000000))
                set.denominator = int(*d);
            sets.push_back(std::move(set));
            prov.inputs << qs(path);
        }
        for (const auto& b : baselines)
            prov.inputs << qs(b);
        SuspicionOptions flags;
        if (auto t = args.number("--threshold", 1.0, 1e9))
            flags.speedupThreshold = *t;
        if (auto d = args.value("--degenerate")) {
            flags.degenerate = readDegenerateProblems(*d);
            prov.inputs << qs(*d);
        }
        RecordsModel model;
        model.setSuspicionOptions(std::move(flags));
        model.setSets(std::move(sets));
        SpeedupPlot::Mode mode = SpeedupPlot::Mode::Histogram;
        const std::string m = args.value("--mode").value_or("histogram");
        if (m == "strip") {
            mode = SpeedupPlot::Mode::Strip;
        } else if (m == "ecdf") {
            mode = SpeedupPlot::Mode::Ecdf;
        } else if (m != "histogram") {
            throw UsageError("--mode: expected histogram, strip or ecdf");
        }
        prov.extra["mode"] = m;
        written = SpeedupPlot::exportFigure(model, mode, fa.out, o, prov);
    } else {
        Session session;
        loadSession(session, fa.inputs, args.value("--rules"));
        for (const QString& f : session.inputFiles())
            prov.inputs << f;
        prov.rulesName = qs(session.rules().name());
        prov.rulesHash = qs(session.rules().hash());
        if (fa.kind == "breakdown") {
            BreakdownView view(&session);
            written = FigureExporter::exportFigure(*view.plot(), fa.out, o, prov);
        } else {
            // The study's projection (DLRM-Bench 5/12, 1.552x) unless told otherwise.
            const double w = args.number("--win-rate", 0.0, 1.0).value_or(0.417);
            const double med = args.number("--median", 1.0, 1000.0).value_or(1.552);
            ProjectionView view(&session);
            view.setParameters(w, med);
            prov.sliders = {{QStringLiteral("win_rate"), w},
                            {QStringLiteral("median_speedup"), med}};
            prov.extra["assumptions"] = projectionAssumptions();
            written = FigureExporter::exportFigure(*view.barPlot(), fa.out, o, prov);
        }
    }

    if (args.flag("--json")) {
        io.out << nlohmann::json{{"figure", written.figure.toStdString()},
                                 {"data_csv", written.csv.toStdString()},
                                 {"provenance", written.json.toStdString()}}
                      .dump(2)
               << "\n";
    } else {
        io.out << "wrote " << written.figure.toStdString() << "\n  data        "
               << written.csv.toStdString() << "\n  provenance  " << written.json.toStdString()
               << "\n";
    }
    return kExitOk;
}

}  // namespace

CliCommand figureCommand() {
    return {"figure", "export a paper-ready figure (PDF, SVG or PNG) with its data and provenance",
            "figure {breakdown|speedups|projection} [INPUTS...] --out F.{pdf,svg,png} [--dpi N]\n"
            "       [--width-in W | --width-mm W] [--height-in H | --height-mm H] [--font-pt P]\n"
            "       [--font FAMILY] [--win-rate W --median M] [--rules R.json]\n"
            "       [--mode histogram|strip|ecdf] [--baseline F ...] [--denominator N]\n"
            "       [--degenerate kb_level1_h200_bf16.json] [--json]\n"
            "  breakdown, projection  INPUTS are profiles, a folder of profiles or a .reach\n"
            "                         project, and published study tables (the format of\n"
            "                         datasets/paper/table3.json: workloads as published);\n"
            "                         none: the bundled sample project\n"
            "  speedups               INPUTS are records files, one evaluation set each\n"
            "  --out       the figure; F.csv (plotted data) and F.json (provenance) are written\n"
            "              beside it\n"
            "  --width-in  3.5 (single column, default) or 7 (double column); height defaults\n"
            "              to 0.68 x width up to 4.5 in, 0.4 x width above\n"
            "  --dpi       PNG resolution (default 300); --font-pt default 8\n"
            "  --win-rate, --median  projection parameters (default DLRM-Bench: 0.417, 1.552)",
            &runFigure};
}

}  // namespace reach::cli
