// reach-cli figure {breakdown|speedups|projection|roofline|headroom} INPUTS...
// (projection: --integration DOC, repeatable)
//   --out F.{pdf,svg,png} [--dpi N]
//   [--width-in W | --width-mm W] [--height-in H] [--font-pt P] [--font FAMILY]
//   [--win-rate W --median M] [--rules R.json] [--mode strip|histogram|ecdf] [--baseline F ...]
//   [--denominator N] [--degenerate F] [--workload NAME] [--json]
// Headless figure export: the same plot code as the GUI (ui/), rendered by FigureExporter on the
// offscreen platform. Built only when the GUI is (reach-cli links reach_ui for this command).
#include <QApplication>
#include <QFileInfo>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <ostream>

#include "cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "core/analysis/projection.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"
#include "core/project/openplan.h"
#include "core/project/workloadheadroom.h"
#include "core/records/recordreader.h"
#include "core/records/suspicion.h"
#include "ui/figure/figureexporter.h"
#include "ui/models/breakdownmodel.h"
#include "ui/models/projectionmodel.h"
#include "ui/models/recordsmodel.h"
#include "ui/plots/breakdownplot.h"
#include "ui/plots/headroomplot.h"
#include "ui/plots/projectionbarplot.h"
#include "ui/plots/rooflineplot.h"
#include "ui/plots/speedupplot.h"
#include "ui/qtstrings.h"

namespace reach::cli {

namespace {

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

struct FigureArgs {
    std::string kind;
    std::vector<std::string> inputs;
    QString out;
    FigureOptions options;
};

int runFigure(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto baselines = takeRepeated(remaining, "--baseline");
    const auto integrations = takeRepeated(remaining, "--integration");
    const CliArgs args(remaining, {{"--json", "--force"},
                                   {"--out", "--dpi", "--width-in", "--width-mm", "--height-in",
                                    "--height-mm", "--font-pt", "--font", "--win-rate", "--median",
                                    "--rules", "--mode", "--denominator", "--degenerate",
                                    "--threshold", "--win-threshold", "--workload"}});
    if (args.positionals().empty()) {
        throw UsageError(
            "which figure? expected breakdown, speedups, projection, roofline or headroom");
    }
    FigureArgs fa;
    fa.kind = args.positionals()[0];
    if (fa.kind != "breakdown" && fa.kind != "speedups" && fa.kind != "projection" &&
        fa.kind != "roofline" && fa.kind != "headroom") {
        throw UsageError("unknown figure '" + fa.kind +
                         "': expected breakdown, speedups, projection, roofline or headroom");
    }
    if (args.value("--workload") && fa.kind != "roofline")
        throw UsageError("--workload is for the roofline figure");
    if (!integrations.empty() && fa.kind != "projection")
        throw UsageError("--integration is for the projection figure");
    fa.inputs.assign(args.positionals().begin() + 1, args.positionals().end());
    const auto out = args.value("--out");
    if (!out)
        throw UsageError("--out F.pdf|F.svg|F.png is required");
    fa.out = FigureExporter::withDefaultExtension(toQString(*out));  // none: PDF
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
        o.style.fontFamily = toQString(*f);
    o.replaceSidecars = args.flag("--force");

    ensureApplication();
    FigureProvenance prov;
    prov.figure = toQString(fa.kind);
    // Every file the command reads, whether or not the provenance lists it, is never an output.
    for (const std::string& f : fa.inputs)
        prov.alsoRead << toQString(f);
    for (const std::string& f : baselines)
        prov.alsoRead << toQString(f);
    for (const std::string& f : integrations)
        prov.alsoRead << toQString(f);
    for (const char* read : {"--rules", "--degenerate"})
        if (auto r = args.value(read))
            prov.alsoRead << toQString(*r);
    FigureExporter::Written written;

    // What the figure plots is read by core, at once, with the loader every subcommand and the
    // GUI use (core/project/openplan.h); ui/ only paints it.
    if (fa.kind == "speedups") {
        OpenOptions open;
        for (const auto& b : baselines)
            open.records.kernelBench.baselines.push_back({b});
        const OpenPlan plan = planOpen(fa.inputs, open);
        std::vector<RecordSet> sets;
        for (const EvaluationSet& e : plan.evaluations) {
            if (e.records.empty())
                continue;  // published summaries have no records to draw
            RecordSet set;
            set.name = toQString(e.name);
            set.records = e.records;
            if (auto d = args.integer("--denominator", 1, 1000000))
                set.denominator = int(*d);
            sets.push_back(std::move(set));
        }
        if (sets.empty()) {
            throw InputError(fa.inputs.empty() ? std::string("the bundled sample") : fa.inputs[0],
                             "", "no evaluation records to plot");
        }
        for (const std::string& src : plan.sources)
            prov.inputs << toQString(src);
        for (const auto& b : baselines)
            prov.inputs << toQString(b);
        SuspicionOptions flags;
        if (auto t = args.number("--threshold", 1.0, 1e9))
            flags.speedupThreshold = *t;
        if (auto d = args.value("--degenerate")) {
            flags.degenerate = readDegenerateProblems(*d);
            prov.inputs << toQString(*d);
        }
        RecordsModel model;
        model.setSuspicionOptions(std::move(flags));
        if (auto w = args.number("--win-threshold", 1.0, 100.0))
            model.setWinThreshold(*w);
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
        std::optional<RuleSet> rules;
        if (auto r = args.value("--rules"))
            rules = loadRules(r);
        // A figure never edits a project: the rules are not remembered in it. The plots paint
        // the project's rows as core read them: no views, no GUI session.
        const Project project = openInputs(fa.inputs, rules);
        const std::vector<ProjectWorkload>& rows = project.workloads;
        for (const std::string& f : project.sources)
            prov.inputs << toQString(f);
        const QString rulesName = toQString(project.rules.name()),
                      rulesHash = toQString(project.rules.hash());
        prov.rulesName = rulesName;
        prov.rulesHash = rulesHash;
        // Each row's short label beside its whole name (breakdown, headroom, projection).
        if (fa.kind == "breakdown" || fa.kind == "headroom" || fa.kind == "projection")
            prov.extra["workloads"] = rowLabelsJson(rows);
        if (fa.kind == "breakdown") {
            BreakdownModel model;
            model.setWorkloads(rows);
            BreakdownPlot plot(&model);
            plot.setRuleSet(rulesName, rulesHash);
            written = FigureExporter::exportFigure(plot, fa.out, o, prov, plot.figureData());
        } else if (fa.kind == "headroom") {
            HeadroomPlot plot;
            plot.setWorkloads(rows);
            written = FigureExporter::exportFigure(plot, fa.out, o, prov, plot.figureData());
        } else if (fa.kind == "roofline") {
            // One workload per figure: --workload, else the first with a work estimate.
            int row = -1;
            if (auto name = args.value("--workload")) {
                std::string names;
                for (size_t r = 0; r < rows.size(); ++r) {
                    if (rows[r].name == *name && row < 0)
                        row = int(r);
                    names += (names.empty() ? "" : ", ") + rows[r].name;
                }
                if (row < 0)
                    throw UsageError("--workload '" + *name + "': no such workload (" + names +
                                     ")");
            } else {
                row = rooflineRow(rows);
            }
            if (row < 0)
                throw InputError(
                    fa.inputs.empty() ? std::string("the bundled sample") : fa.inputs[0], "",
                    "no workload to plot");
            prov.extra["workload"] = rows[size_t(row)].name;
            RooflinePlot plot;
            plot.setWorkload(rows[size_t(row)].name, headroomOf(rows[size_t(row)]));
            written = FigureExporter::exportFigure(plot, fa.out, o, prov, plot.figureData());
        } else {
            // The study's projection (DLRM-Bench 5/12, 1.552x) unless told otherwise.
            const double w = args.number("--win-rate", 0.0, 1.0).value_or(kDlrmBenchWinRate);
            const double med =
                args.number("--median", 1.0, 1000.0).value_or(kDlrmBenchMedianSpeedup);
            ProjectionModel model;
            model.setWorkloads(rows);
            // As given (the GUI's slider stops at 10x; a figure of 20x is drawn at 20x).
            model.setParameters(w, med);
            // What reach-cli integrate measured, beside the row of its profile (the GUI's
            // "Measured: an integration run...").
            for (const std::string& doc : integrations)
                model.attachIntegration(doc);
            if (const nlohmann::json runs = model.integrationProvenance(); !runs.empty()) {
                prov.extra["integration_runs"] = runs;
                prov.inputs << model.integrationDocuments();
            }
            ProjectionBarPlot plot(&model);
            plot.setRuleSet(rulesName, rulesHash);
            plot.setRows();
            prov.sliders = {{QStringLiteral("win_rate"), model.winRate()},
                            {QStringLiteral("median_speedup"), model.medianSpeedup()}};
            prov.extra["assumptions"] = projectionAssumptions();
            written = FigureExporter::exportFigure(plot, fa.out, o, prov, plot.figureData());
        }
    }

    for (const QString& w : written.warnings)
        io.err << "reach-cli: warning: " << w.toStdString() << "\n";
    if (args.flag("--json")) {
        nlohmann::json warnings = nlohmann::json::array();
        for (const QString& w : written.warnings)
            warnings.push_back(w.toStdString());
        io.out << reach::dumpJson(nlohmann::json{{"figure", written.figure.toStdString()},
                                                 {"data_csv", written.csv.toStdString()},
                                                 {"provenance", written.json.toStdString()},
                                                 {"warnings", warnings}})
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
            "figure {breakdown|speedups|projection|roofline|headroom} [INPUTS...]\n"
            "       --out F.{pdf,svg,png} [--dpi N]\n"
            "       [--width-in W | --width-mm W] [--height-in H | --height-mm H] [--font-pt P]\n"
            "       [--font FAMILY] [--win-rate W --median M] [--rules R.json]\n"
            "       [--mode histogram|strip|ecdf] [--baseline F ...] [--denominator N]\n"
            "       [--degenerate kb_level1_h200_bf16.json] [--workload NAME] [--force] [--json]\n"
            "  breakdown, projection, roofline, headroom\n"
            "                         INPUTS are profiles, a folder of profiles or a .reach\n"
            "                         project, and published study tables (the format of\n"
            "                         datasets/paper/table3.json: workloads as published);\n"
            "                         none: the bundled sample project\n"
            "  speedups               INPUTS are records files (one evaluation set each), a\n"
            "                         folder of reach-verify outputs (one set), a .reach\n"
            "                         project; none: the bundled sample's evaluation sets\n"
            "  --out       the figure; F.csv (plotted data) and F.json (provenance) are written\n"
            "              beside it. None may be an input; F.csv and F.json replace only\n"
            "              files Reach wrote for this figure (--force: any file)\n"
            "  --width-in  3.5 (single column, default) or 7 (double column); height defaults\n"
            "              to 0.68 x width up to 4.5 in, 0.4 x width above\n"
            "  --dpi       PNG resolution (default 300); --font-pt default 8\n"
            "  --win-rate, --median  projection parameters (default DLRM-Bench: 0.417, 1.552)\n"
            "  --integration DOC     projection: a saved reach-cli integrate --json document,\n"
            "                        its measured saving beside its profile's row (repeatable)\n"
            "  --workload  the roofline's workload (default: the first with a work estimate;\n"
            "              profiles recorded with record_shapes=True, docs/headroom.md)",
            &runFigure};
}

}  // namespace reach::cli
