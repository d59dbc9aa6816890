#include "ui/figure/figureexporter.h"

#include <qcustomplot.h>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QFontInfo>
#include <QImage>
#include <QPicture>
#include <QSaveFile>
#include <QSvgGenerator>
#include <charconv>
#include <cmath>

#include "core/base/inputerror.h"
#include "core/base/outputguard.h"
#include "core/base/sha256.h"

#ifndef REACH_VERSION
#define REACH_VERSION "0.1.0"
#endif

namespace reach {

namespace {

std::string str(const QString& s) {
    return s.toStdString();
}

void writeFile(const QString& path, const std::string& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) || !f.commit()) {
        throw InputError(str(path), "file",
                         "a writable output file (" + str(f.errorString()) + ")");
    }
}

// An input's identity: a file's SHA-256; a folder (a set of reach-verify outputs) is the SHA-256
// of its sorted "name hash" lines, so any change to any file in it changes the folder's hash.
nlohmann::json inputRecord(const QString& path) {
    const QFileInfo info(path);
    if (!info.isDir()) {
        return {
            {"path", str(path)}, {"sha256", Sha256::hexOfFile(str(path))}, {"bytes", info.size()}};
    }
    Sha256 h;
    qint64 bytes = 0;
    int files = 0;
    for (const QFileInfo& f : QDir(path).entryInfoList(QDir::Files, QDir::Name)) {
        h.update(str(f.fileName()) + " " + Sha256::hexOfFile(str(f.absoluteFilePath())) + "\n");
        bytes += f.size();
        ++files;
    }
    return {{"path", str(path)}, {"sha256", h.hexDigest()}, {"bytes", bytes}, {"files", files}};
}

}  // namespace

double FigureOptions::effectiveHeightIn() const {
    if (heightIn > 0)
        return heightIn;
    return widthIn <= 4.5 ? widthIn * 0.68 : widthIn * 0.4;
}

FigureFormat FigureExporter::formatFromPath(const QString& path) {
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == "pdf")
        return FigureFormat::Pdf;
    if (ext == "svg")
        return FigureFormat::Svg;
    if (ext == "png")
        return FigureFormat::Png;
    throw InputError(str(path), "file name extension",
                     "one of .pdf, .svg or .png (got '." + str(ext) + "')");
}

QString FigureExporter::withDefaultExtension(const QString& path, FigureFormat format) {
    if (!QFileInfo(path).suffix().isEmpty())
        return path;
    switch (format) {
        case FigureFormat::Svg:
            return path + QStringLiteral(".svg");
        case FigureFormat::Png:
            return path + QStringLiteral(".png");
        case FigureFormat::Pdf:
            break;
    }
    return path + QStringLiteral(".pdf");
}

QString FigureExporter::resolvedFontFamily(const QString& requested) {
    QFont font(requested);
    font.setStyleHint(QFont::SansSerif);
    return QFontInfo(font).family();
}

QString FigureExporter::csvPathFor(const QString& figurePath) {
    const QFileInfo fi(figurePath);
    return fi.dir().filePath(fi.completeBaseName() + ".csv");
}

QString FigureExporter::jsonPathFor(const QString& figurePath) {
    const QFileInfo fi(figurePath);
    return fi.dir().filePath(fi.completeBaseName() + ".json");
}

QString FigureExporter::reachVersion() {
    return QStringLiteral(REACH_VERSION);
}

namespace {

// Without a requested height, a bar chart with many categories gets room for about one label
// line each (14 pt per category plus 110 pt of legend, axes and caption) where the width's
// aspect would not give it: 13 workloads in 2.4 in overprinted each other's labels.
FigureOptions withRoomForCategories(const QCustomPlot& plot, FigureOptions o) {
    if (o.heightIn > 0)
        return o;
    // A plot that thins its category names on a screen says how many rows it has.
    qsizetype n = plot.property("reach_category_count").toInt();
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            auto text = axis->ticker().dynamicCast<QCPAxisTickerText>();
            if (text && axis->visible() && axis->orientation() == Qt::Vertical)
                n = std::max(n, text->ticks().size());
        }
    }
    if (n > 0)
        o.heightIn =
            std::max(o.effectiveHeightIn(), std::min(12.0, (double(n) * 14.0 + 110.0) / 72.0));
    return o;
}

// Whether the files beside `figure` are the ones Reach wrote for it: the provenance F.json
// names a figure F (of any format) and its CSV, and F.csv has the SHA-256 it recorded. A
// re-export replaces them; anything else there is someone's file.
struct PriorSidecars {
    bool csvOurs = false, jsonOurs = false;
};
PriorSidecars priorSidecars(const QString& figure, const QString& csv, const QString& json) {
    PriorSidecars out;
    QFile f(json);
    constexpr qint64 kMaxProvenance = 16 << 20;  // a provenance is kilobytes
    if (!f.open(QIODevice::ReadOnly) || f.size() > kMaxProvenance)
        return out;
    const QByteArray bytes = f.readAll();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size());
    } catch (const nlohmann::json::exception&) {
        return out;
    }
    auto text = [&](const char* key) {
        return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                      : std::string();
    };
    // The same figure in another format (F.png after F.pdf) shares them: its stem is enough.
    out.jsonOurs = !text("reach_version").empty() && !text("figure").empty() &&
                   QFileInfo(QString::fromStdString(text("file"))).completeBaseName() ==
                       QFileInfo(figure).completeBaseName() &&
                   text("data_csv") == str(QFileInfo(csv).fileName());
    try {
        out.csvOurs = out.jsonOurs && QFileInfo(csv).isFile() && !text("data_csv_sha256").empty() &&
                      text("data_csv_sha256") == Sha256::hexOfFile(str(csv));
    } catch (const std::exception&) {
        out.csvOurs = false;  // unreadable: not a file Reach can tell is its own
    }
    return out;
}

// One export as it is drawn: what the figure's file and its provenance are made from, beside what
// the caller gave (FigureProvenance).
struct Export {
    QString path;
    FigureFormat format = FigureFormat::Pdf;
    FigureOptions options;  // the font is the one drawn with (usedFont)
    QString askedFont, usedFont;
    QSize pagePt;                                     // one plot unit = one point (1/72 in)
    QSize pixelSize;                                  // PNG only
    nlohmann::json inputs = nlohmann::json::array();  // each input's identity (inputRecord)
};

// The height a styled plot needs at its page's width: every row of its layout at its minimum
// (legend rows, the footer's wrapped lines, the axes' labels and titles, from the layout done
// at this width), and a line per category on the category axis (issue 40: a 3.5 in projection
// with its overlays' legend clipped its legend, its caption and its axis title).
double contentHeightPt(QCustomPlot& plot) {
    plot.replot(QCustomPlot::rpImmediateRefresh);  // margins and wrapped texts at this width
    double needed = plot.plotLayout()->minimumOuterSizeHint().height();
    const qsizetype rows = plot.property("reach_category_count").toInt();
    for (QCPAxisRect* rect : plot.axisRects()) {
        const double line = QFontMetricsF(rect->axis(QCPAxis::atLeft)->tickLabelFont()).height();
        needed += double(rows) * line * 1.15;  // a label's line and a little air between bars
    }
    return needed;
}

// Without a requested height, the page grows to what its content needs (never shrinks: the
// width's aspect, or the categories' room, stays the least).
void growToContent(QCustomPlot& plot, Export& e) {
    const double needed = std::min(12.0 * 72.0, contentHeightPt(plot));
    if (needed <= e.pagePt.height() + 0.5)
        return;
    e.options.heightIn = needed / 72.0;
    e.pagePt.setHeight(int(std::ceil(needed)));
    if (e.format == FigureFormat::Png)
        e.pixelSize.setHeight(int(std::lround(e.options.heightIn * e.options.dpi)));
    e.options.style.apply(plot, e.pagePt);
}

// The figure's size and resolution are within what a page and a printer make sense of.
void checkSizeAndDpi(const Export& e) {
    if (!(e.options.widthIn > 0.5 && e.options.widthIn < 40) ||
        !(e.options.effectiveHeightIn() > 0.5 && e.options.effectiveHeightIn() < 40)) {
        throw InputError(str(e.path), "figure size",
                         "a width and height between 0.5 and 40 inches");
    }
    if (e.options.dpi < 30 || e.options.dpi > 2400) {
        throw InputError(str(e.path), "dpi", "a resolution between 30 and 2400 dpi");
    }
}

// Nothing is written over an input, nor over a file beside the figure that Reach did not write
// for it: checked before the first byte is written.
void checkNothingOverwritten(const Export& e, const FigureProvenance& provenance) {
    OutputGuard guard;
    for (const QString& in : provenance.inputs + provenance.alsoRead)
        guard.addInput(str(in));
    guard.checkNamed(str(e.path));
    const QString csv = FigureExporter::csvPathFor(e.path);
    const QString json = FigureExporter::jsonPathFor(e.path);
    const PriorSidecars prior = priorSidecars(e.path, csv, json);
    guard.checkSidecar(str(csv), prior.csvOurs, e.options.replaceSidecars);
    guard.checkSidecar(str(json), prior.jsonOurs, e.options.replaceSidecars);
}

int screenDpi(const QCustomPlot& plot) {
    return plot.logicalDpiY() > 0 ? plot.logicalDpiY() : 96;
}

bool paintSvg(QCustomPlot& plot, const Export& e, const QString& title, const QString& creator) {
    const int w = e.pagePt.width(), h = e.pagePt.height();
    const int dpi = screenDpi(plot);
    QSvgGenerator svg;
    svg.setFileName(e.path);
    // The generator resolves point-size fonts with its resolution: the screen's, as
    // QCustomPlot measured them. Its size (at that resolution) gives the physical size.
    svg.setResolution(dpi);
    svg.setSize(QSize(int(std::lround(e.options.widthIn * dpi)),
                      int(std::lround(e.options.effectiveHeightIn() * dpi))));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(title);
    svg.setDescription(creator);
    QCPPainter painter;
    if (!painter.begin(&svg))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    plot.toPainter(&painter, w, h);
    return painter.end();
}

bool paintPng(QCustomPlot& plot, const Export& e) {
    const int w = e.pagePt.width(), h = e.pagePt.height();
    const int dpi = screenDpi(plot);
    QImage image(e.pixelSize, QImage::Format_ARGB32_Premultiplied);
    // Text is measured at the screen's dpi; the painter scale does the rest.
    image.setDotsPerMeterX(int(std::lround(dpi / 0.0254)));
    image.setDotsPerMeterY(int(std::lround(dpi / 0.0254)));
    image.fill(Qt::white);
    QCPPainter painter;
    if (!painter.begin(&image))
        return false;
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.scale(double(e.pixelSize.width()) / w, double(e.pixelSize.height()) / h);
    plot.toPainter(&painter, w, h);
    painter.end();
    image.setDotsPerMeterX(int(std::lround(e.options.dpi / 0.0254)));
    image.setDotsPerMeterY(int(std::lround(e.options.dpi / 0.0254)));
    return image.convertToFormat(QImage::Format_RGB32).save(e.path, "PNG");
}

// A dry run of the painting at the page's size, then the style once more: a plot that lays its
// rows out again at a new size (the projection names every k-th row when rows are closer than a
// line, and rebuilds its names when k changes) has then put back the full names that the style
// had fitted to the page (a 3.5 in projection with integration runs: names over 60 % of the
// width, values and the axis title cut). Fitted again, they stay: the next layout is the same.
void settleAtPageSize(QCustomPlot& plot, const Export& e) {
    QPicture picture;
    QCPPainter painter;
    if (!painter.begin(&picture))
        return;
    painter.setMode(QCPPainter::pmNoCaching);
    plot.toPainter(&painter, e.pagePt.width(), e.pagePt.height());
    painter.end();
    plot.setProperty(kPageLayoutProperty, true);
    e.options.style.apply(plot, e.pagePt);
    plot.setProperty(kPageLayoutProperty, QVariant());
}

// Paints the plot, already in paper style, to the export's file; false when it could not.
bool paintFigure(QCustomPlot& plot, const Export& e, const QString& figure) {
    const QString title =
        QStringLiteral("Reach %1: %2").arg(FigureExporter::reachVersion(), figure);
    const QString creator = QStringLiteral("Reach %1").arg(FigureExporter::reachVersion());
    switch (e.format) {
        case FigureFormat::Pdf:
            return plot.savePdf(e.path, e.pagePt.width(), e.pagePt.height(), QCP::epNoCosmetic,
                                creator, title);
        case FigureFormat::Svg:
            return paintSvg(plot, e, title, creator);
        case FigureFormat::Png:
            break;
    }
    return paintPng(plot, e);
}

// F.json: enough to rebuild the figure and to tell which inputs and rules made it, and that F.csv
// (of `csvText`) is the one written with it.
nlohmann::json provenanceJson(const Export& e, const FigureProvenance& provenance,
                              const std::string& csvText) {
    nlohmann::json sliders = nlohmann::json::object();
    for (const auto& [name, value] : provenance.sliders)
        sliders[str(name)] = value;
    nlohmann::json rules = nullptr;
    if (!provenance.rulesName.isEmpty() || !provenance.rulesHash.isEmpty()) {
        rules = {{"name", str(provenance.rulesName)}, {"hash", str(provenance.rulesHash)}};
    }
    const char* formatName = e.format == FigureFormat::Pdf   ? "pdf"
                             : e.format == FigureFormat::Svg ? "svg"
                                                             : "png";
    nlohmann::json j = {
        {"figure", str(provenance.figure)},
        {"file", str(QFileInfo(e.path).fileName())},
        {"format", formatName},
        {"data_csv", str(QFileInfo(FigureExporter::csvPathFor(e.path)).fileName())},
        {"data_csv_sha256", Sha256::hex(csvText)},
        {"width_in", e.pagePt.width() / 72.0},
        {"height_in", e.pagePt.height() / 72.0},
        {"font_family", str(e.usedFont)},
        {"font_pt", e.options.style.fontPt},
        {"inputs", e.inputs},
        {"rules", rules},
        {"sliders", sliders},
        {"reach_version", str(FigureExporter::reachVersion())},
        {"qt_version", qVersion()},
        {"created_utc", str(QDateTime::currentDateTimeUtc().toString(Qt::ISODate))},
    };
    if (e.format == FigureFormat::Png) {
        j["dpi"] = e.options.dpi;
        j["width_px"] = e.pixelSize.width();
        j["height_px"] = e.pixelSize.height();
    }
    if (e.usedFont.compare(e.askedFont, Qt::CaseInsensitive) != 0)
        j["font_requested"] = str(e.askedFont);
    for (auto it = provenance.extra.begin(); it != provenance.extra.end(); ++it) {
        j[it.key()] = it.value();
    }
    return j;
}

// One provenance beside a figure exported in several formats under one name (F.pdf, then F.png):
// `files` keeps each format's file, size and time, the earlier ones while the data (the CSV)
// is the same, so the PDF's record is not lost to the PNG's. New data starts the list again
// (a figure of other data beside it no longer matches the CSV).
nlohmann::json withEarlierFormats(nlohmann::json j, const QString& jsonPath) {
    nlohmann::json files = nlohmann::json::object();
    QFile f(jsonPath);
    constexpr qint64 kMaxProvenance = 16 << 20;
    if (f.open(QIODevice::ReadOnly) && f.size() <= kMaxProvenance) {
        const QByteArray bytes = f.readAll();
        const nlohmann::json prior = nlohmann::json::parse(
            bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
        if (prior.is_object() &&
            prior.value("data_csv_sha256", nlohmann::json()) == j["data_csv_sha256"] &&
            prior.value("figure", nlohmann::json()) == j["figure"] && prior.contains("files") &&
            prior["files"].is_object()) {
            // Only what Reach writes there, of a format it writes, for a file that is beside it
            // under this name: a planted provenance adds nothing to ours.
            const QFileInfo here(jsonPath);
            for (const auto& [format, record] : prior["files"].items()) {
                if (format == j["format"].get<std::string>() ||
                    (format != "pdf" && format != "svg" && format != "png") || !record.is_object())
                    continue;
                const std::string file = record.value("file", std::string());
                const QFileInfo figure(here.dir().filePath(QString::fromStdString(file)));
                if (file.empty() || file.find('/') != std::string::npos || !figure.isFile() ||
                    figure.completeBaseName() != here.completeBaseName() ||
                    figure.suffix().toLower().toStdString() != format)
                    continue;
                nlohmann::json kept = {{"file", file}};
                for (const char* key : {"width_in", "height_in", "dpi", "width_px", "height_px"})
                    if (record.contains(key) && record[key].is_number())
                        kept[key] = record[key];
                if (record.contains("created_utc") && record["created_utc"].is_string())
                    kept["created_utc"] = record["created_utc"];
                files[format] = std::move(kept);
            }
        }
    }
    nlohmann::json mine = {{"file", j["file"]},
                           {"width_in", j["width_in"]},
                           {"height_in", j["height_in"]},
                           {"created_utc", j["created_utc"]}};
    for (const char* key : {"dpi", "width_px", "height_px"})
        if (j.contains(key))
            mine[key] = j[key];
    files[j["format"].get<std::string>()] = std::move(mine);
    j["files"] = std::move(files);
    return j;
}

}  // namespace

FigureExporter::Written FigureExporter::exportFigure(QCustomPlot& plot,
                                                     const QString& requestedPath,
                                                     const FigureOptions& requested,
                                                     const FigureProvenance& provenance,
                                                     const FigureTable& data) {
    Export e;
    e.path = withDefaultExtension(requestedPath);
    e.options = withRoomForCategories(plot, requested);
    // A font that is not installed is drawn with a substitute: say so, draw with the substitute
    // by its name, and record that one (a figure's provenance must name the font it shows).
    QStringList warnings;
    e.usedFont = resolvedFontFamily(e.options.style.fontFamily);
    e.askedFont = e.options.style.fontFamily;
    if (e.usedFont.compare(e.askedFont, Qt::CaseInsensitive) != 0) {
        warnings << QStringLiteral("%1: font '%2' is not installed; drawn with '%3'")
                        .arg(e.path, e.askedFont, e.usedFont);
        e.options.style.fontFamily = e.usedFont;
    }
    e.format = formatFromPath(e.path);
    checkSizeAndDpi(e);
    checkNothingOverwritten(e, provenance);
    // Hash inputs first: a missing input must not leave a half-written figure behind.
    for (const QString& in : provenance.inputs)
        e.inputs.push_back(inputRecord(in));

    // One plot unit = one point (1/72 in): PDF page, SVG viewBox and PNG scale all follow.
    e.pagePt = QSize(std::max(1, int(std::lround(e.options.widthIn * 72.0))),
                     std::max(1, int(std::lround(e.options.effectiveHeightIn() * 72.0))));
    if (e.format == FigureFormat::Png) {
        e.pixelSize = QSize(int(std::lround(e.options.widthIn * e.options.dpi)),
                            int(std::lround(e.options.effectiveHeightIn() * e.options.dpi)));
    }
    {
        PlotStyleGuard guard(plot);
        e.options.style.apply(plot, e.pagePt);
        if (requested.heightIn <= 0)
            growToContent(plot, e);
        settleAtPageSize(plot, e);
        if (!paintFigure(plot, e, provenance.figure))
            throw InputError(str(e.path), "file", "a writable output file");
    }

    const std::string csvText = figureTableCsv(data);
    writeFile(csvPathFor(e.path), csvText);
    writeFile(
        jsonPathFor(e.path),
        withEarlierFormats(provenanceJson(e, provenance, csvText), jsonPathFor(e.path)).dump(2) +
            "\n");
    return {e.path, csvPathFor(e.path), jsonPathFor(e.path), warnings};
}

}  // namespace reach
