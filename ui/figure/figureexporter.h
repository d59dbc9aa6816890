#pragma once

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/project/figuredata.h"
#include "ui/figure/figurestyle.h"

class QCustomPlot;

namespace reach {

enum class FigureFormat { Pdf, Svg, Png };

// Size, resolution and type of an exported figure. Sizes are physical (inches); the presets are
// the usual two-column paper widths.
struct FigureOptions {
    double widthIn = 3.5;
    double heightIn = 0;  // 0: chosen from the width (see effectiveHeightIn), taller for a bar
                          // chart with many categories (FigureExporter::exportFigure)
    int dpi = 300;        // PNG only; PDF and SVG are vector
    FigureStyle style;
    // F.csv and F.json replace files of those names only where Reach wrote them for this
    // figure (its provenance names both and the CSV's SHA-256), or with this set (--force).
    bool replaceSidecars = false;

    static FigureOptions singleColumn() { return {}; }  // 3.5 in
    static FigureOptions doubleColumn() {
        FigureOptions o;
        o.widthIn = 7.0;
        return o;
    }
    static double mmToIn(double mm) { return mm / 25.4; }
    // A single-column figure gets a 0.68 aspect, a wide one a flatter 0.4, as papers lay them out.
    double effectiveHeightIn() const;
};

// What the provenance JSON beside a figure records: enough to rebuild the figure and to tell
// which inputs and which rules made it.
struct FigureProvenance {
    QString figure;        // "breakdown", "speedups", "projection"
    QStringList inputs;    // input files; each is hashed (SHA-256) at export
    QStringList alsoRead;  // read but not recorded as inputs (a rule file): never written over
    QString rulesName;     // empty when no rule set was involved
    QString rulesHash;
    std::vector<std::pair<QString, double>> sliders;  // "win_rate", "median_speedup", ...
    nlohmann::json extra = nlohmann::json::object();  // e.g. the projection's assumptions
};

// Writes a QCustomPlot as a paper-ready figure: PDF (vector, non-cosmetic pens), SVG or PNG, plus
// F.csv (the plotted data: the FigureTable the plot was drawn from, core/project/figuredata.h)
// and F.json (provenance; the font family actually drawn with, and the one asked for when it was
// not installed). A path without an extension is written as PDF. Works headless (offscreen
// platform) for reach-cli and from the GUI; the plot's on-screen style is restored afterwards.
// Throws InputError for an unknown extension, an unreadable input file, an output that cannot be
// written, an output that is one of the inputs, and a sidecar that would replace a file Reach did
// not write for this figure (core/base/outputguard.h), all before anything is written.
class FigureExporter {
public:
    struct Written {
        QString figure, csv, json;
        QStringList warnings;  // e.g. a requested font that is not installed (one line each)
    };

    static FigureFormat formatFromPath(const QString& path);
    // A path without an extension gets the format's (PDF's, unless told) ".pdf"; a path with
    // one is returned as it is (formatFromPath judges it).
    static QString withDefaultExtension(const QString& path,
                                        FigureFormat format = FigureFormat::Pdf);
    // The family Qt draws when `requested` is asked for (a substitute when it is not installed).
    static QString resolvedFontFamily(const QString& requested);
    static QString csvPathFor(const QString& figurePath);
    static QString jsonPathFor(const QString& figurePath);

    static Written exportFigure(QCustomPlot& plot, const QString& path,
                                const FigureOptions& options, const FigureProvenance& provenance,
                                const FigureTable& data);
    static QString reachVersion();
};

}  // namespace reach
