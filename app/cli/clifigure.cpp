// reach-cli figure {breakdown|speedups|projection|roofline|headroom} INPUTS...
// (projection: --integration DOC, repeatable; --benchmark DIR --records R, repeatable)
//   --out F.{pdf,svg,png} [--dpi N]
//   [--width-in W | --width-mm W] [--height-in H] [--font-pt P] [--font FAMILY]
//   [--win-rate W --median M] [--rules R.json] [--mode strip|histogram|ecdf] [--baseline F ...]
//   [--denominator N] [--degenerate F] [--workload NAME] [--json]
// Headless figure export: the same plot code as the GUI (ui/), rendered by FigureExporter on the
// offscreen platform. Built only when the GUI is (reach-cli links reach_ui for this command).
#include <QApplication>
#include <QFileInfo>
#include <nlohmann/json.hpp>
#include <optional>

#include <cstdlib>
#include <ostream>

#include "app/args/cliargs.h"
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
#include "ui/figure/projectionprovenance.h"
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
    // projection: what integrate measured, and an exact projection (a benchmark folder and the
    // verify results of its problems), beside their profiles' rows.
    std::vector<std::string> integrations;
    std::optional<std::string> benchmark;
    std::vector<std::string> records;
};

// Which figure, of what, written where and how: checked before any work (a bad extension too).
FigureArgs figureArgsFrom(const CliArgs& args, const std::vector<std::string>& integrations,
                          const std::vector<std::string>& records) {
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
    fa.integrations = integrations;
    fa.benchmark = args.value("--benchmark");
    fa.records = records;
    if ((fa.benchmark || !records.empty()) && fa.kind != "projection")
        throw UsageError("--benchmark and --records are for the projection figure");
    if (fa.benchmark.has_value() != !records.empty())
        throw UsageError(
            "--benchmark DIR goes with --records R (the verify results of its "
            "problems, repeatable)");
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
    return fa;
}

// Every file the command reads, whether or not the provenance lists it, is never an output.
FigureProvenance startProvenance(const CliArgs& args, const FigureArgs& fa,
                                 const std::vector<std::string>& baselines) {
    FigureProvenance prov;
    prov.figure = toQString(fa.kind);
    for (const std::string& f : fa.inputs)
        prov.alsoRead << toQString(f);
    for (const std::string& f : baselines)
        prov.alsoRead << toQString(f);
    for (const std::string& f : fa.integrations)
        prov.alsoRead << toQString(f);
    for (const std::string& f : fa.records)
        prov.alsoRead << toQString(f);
    if (fa.benchmark)
        prov.alsoRead << toQString(*fa.benchmark);
    for (const char* read : {"--rules", "--degenerate"})
        if (auto r = args.value(read))
            prov.alsoRead << toQString(*r);
    return prov;
}

// The records' evaluation sets that have records to draw (published summaries have none).
std::vector<RecordSet> recordSetsToPlot(const CliArgs& args, const OpenPlan& plan,
                                        const std::vector<std::string>& inputs) {
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
        throw InputError(inputs.empty() ? std::string("the bundled sample") : inputs[0], "",
                         "no evaluation records to plot");
    }
    return sets;
}

SpeedupPlot::Mode speedupPlotMode(const std::string& m) {
    if (m == "strip")
        return SpeedupPlot::Mode::Strip;
    if (m == "ecdf")
        return SpeedupPlot::Mode::Ecdf;
    if (m != "histogram")
        throw UsageError("--mode: expected histogram, strip or ecdf");
    return SpeedupPlot::Mode::Histogram;
}

// The speedups figure: evaluation records, read with the loader every subcommand and the GUI
// use (core/project/openplan.h).
FigureExporter::Written exportSpeedupsFigure(const CliArgs& args, const FigureArgs& fa,
                                             const std::vector<std::string>& baselines,
                                             FigureProvenance& prov) {
    OpenOptions open;
    for (const auto& b : baselines)
        open.records.kernelBench.baselines.push_back({b});
    const OpenPlan plan = planOpen(fa.inputs, open);
    std::vector<RecordSet> sets = recordSetsToPlot(args, plan, fa.inputs);
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
    const std::string m = args.value("--mode").value_or("histogram");
    const SpeedupPlot::Mode mode = speedupPlotMode(m);
    prov.extra["mode"] = m;
    return SpeedupPlot::exportFigure(model, mode, fa.out, fa.options, prov);
}

// The roofline's one workload: --workload, else the first with a work estimate.
size_t rooflineWorkload(const CliArgs& args, const std::vector<ProjectWorkload>& rows,
                        const std::vector<std::string>& inputs) {
    int row = -1;
    if (auto name = args.value("--workload")) {
        std::string names;
        for (size_t r = 0; r < rows.size(); ++r) {
            if (rows[r].name == *name && row < 0)
                row = int(r);
            names += (names.empty() ? "" : ", ") + rows[r].name;
        }
        if (row < 0)
            throw UsageError("--workload '" + *name + "': no such workload (" + names + ")");
    } else {
        row = rooflineRow(rows);
    }
    if (row < 0)
        throw InputError(inputs.empty() ? std::string("the bundled sample") : inputs[0], "",
                         "no workload to plot");
    return size_t(row);
}

FigureExporter::Written exportProjectionFigure(const CliArgs& args, const FigureArgs& fa,
                                               const std::vector<ProjectWorkload>& rows,
                                               FigureProvenance& prov) {
    // The study's projection (DLRM-Bench 5/12, 1.552x) unless told otherwise.
    const double w = args.number("--win-rate", 0.0, 1.0).value_or(kDlrmBenchWinRate);
    const double med = args.number("--median", 1.0, 1000.0).value_or(kDlrmBenchMedianSpeedup);
    ProjectionModel model;
    model.setWorkloads(rows);
    // As given (the GUI's slider stops at 10x; a figure of 20x is drawn at 20x).
    model.setParameters(w, med);
    // What reach-cli integrate measured, and the exact projection of a benchmark folder, beside
    // the rows of their profiles: the model's own calls, as the GUI's Exact projection menu.
    for (const std::string& doc : fa.integrations)
        model.attachIntegration(doc);
    std::vector<std::string> notCounted;
    if (fa.benchmark)
        model.attachBenchmark(*fa.benchmark, fa.records, -1, &notCounted);
    addProjectionProvenance(prov, model);
    ProjectionBarPlot plot(&model);
    plot.setRuleSet(prov.rulesName, prov.rulesHash);
    plot.setRows();
    FigureExporter::Written written =
        FigureExporter::exportFigure(plot, fa.out, fa.options, prov, plot.figureData());
    for (const std::string& why : notCounted)
        written.warnings << QStringLiteral("shown, not counted: ") + toQString(why);
    return written;
}

// The figures of workloads (breakdown, headroom, roofline, projection): profiles, folders,
// projects and published tables, read by core's openInputs.
FigureExporter::Written exportWorkloadFigure(const CliArgs& args, const FigureArgs& fa,
                                             FigureProvenance& prov) {
    std::optional<RuleSet> rules;
    if (auto r = args.value("--rules"))
        rules = loadRules(r);
    // A figure never edits a project: the rules are not remembered in it. The plots paint
    // the project's rows as core read them: no views, no GUI session.
    const Project project = openInputs(fa.inputs, rules);
    const std::vector<ProjectWorkload>& rows = project.workloads;
    for (const std::string& f : project.sources)
        prov.inputs << toQString(f);
    prov.rulesName = toQString(project.rules.name());
    prov.rulesHash = toQString(project.rules.hash());
    // Each row's short label beside its whole name (breakdown, headroom, projection).
    if (fa.kind == "breakdown" || fa.kind == "headroom" || fa.kind == "projection")
        prov.extra["workloads"] = rowLabelsJson(rows);
    if (fa.kind == "breakdown") {
        BreakdownModel model;
        model.setWorkloads(rows);
        BreakdownPlot plot(&model);
        plot.setRuleSet(prov.rulesName, prov.rulesHash);
        return FigureExporter::exportFigure(plot, fa.out, fa.options, prov, plot.figureData());
    }
    if (fa.kind == "headroom") {
        HeadroomPlot plot;
        plot.setWorkloads(rows);
        return FigureExporter::exportFigure(plot, fa.out, fa.options, prov, plot.figureData());
    }
    if (fa.kind == "roofline") {
        const ProjectWorkload& row = rows[rooflineWorkload(args, rows, fa.inputs)];
        prov.extra["workload"] = row.name;
        RooflinePlot plot;
        plot.setWorkload(row.name, headroomOf(row));
        return FigureExporter::exportFigure(plot, fa.out, fa.options, prov, plot.figureData());
    }
    return exportProjectionFigure(args, fa, rows, prov);
}

// The files written: a line each on stdout (or one JSON document), the warnings on stderr.
void reportWritten(const FigureExporter::Written& written, bool asJson, CliIo& io) {
    for (const QString& w : written.warnings)
        io.err << "reach-cli: warning: " << w.toStdString() << "\n";
    if (asJson) {
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
}

int runFigure(const std::vector<std::string>& argv, CliIo& io) {
    std::vector<std::string> remaining = argv;
    const auto baselines = takeRepeated(remaining, "--baseline");
    const auto integrations = takeRepeated(remaining, "--integration");
    const auto records = takeRepeated(remaining, "--records");
    const CliArgs args(
        remaining,
        {{"--json", "--force"},
         {"--out", "--dpi", "--width-in", "--width-mm", "--height-in", "--height-mm", "--font-pt",
          "--font", "--win-rate", "--median", "--rules", "--mode", "--denominator", "--degenerate",
          "--threshold", "--win-threshold", "--workload", "--benchmark"}});
    const FigureArgs fa = figureArgsFrom(args, integrations, records);
    ensureApplication();
    FigureProvenance prov = startProvenance(args, fa, baselines);
    // What the figure plots is read by core, at once, with the loader every subcommand and the
    // GUI use (core/project/openplan.h); ui/ only paints it.
    const FigureExporter::Written written = fa.kind == "speedups"
                                                ? exportSpeedupsFigure(args, fa, baselines, prov)
                                                : exportWorkloadFigure(args, fa, prov);
    reportWritten(written, args.flag("--json"), io);
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
            "       [--integration DOC ...] [--benchmark DIR --records R ...]\n"
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
            "  --benchmark DIR --records R ...  projection: the exact projection of a benchmark\n"
            "                        folder (reach-cli extract) from the verify results of its\n"
            "                        problems, beside its profile's row (as reach-cli project\n"
            "                        --benchmark and the GUI's Exact projection)\n"
            "  --workload  the roofline's workload (default: the first with a work estimate;\n"
            "              profiles recorded with record_shapes=True, docs/headroom.md)",
            &runFigure};
}

}  // namespace reach::cli
