#include "ui/figure/figureexporter.h"

#include <qcustomplot.h>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QFontInfo>
#include <QImage>
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
    qsizetype n = 0;
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

}  // namespace

FigureExporter::Written FigureExporter::exportFigure(QCustomPlot& plot,
                                                     const QString& requestedPath,
                                                     const FigureOptions& requested,
                                                     const FigureProvenance& provenance,
                                                     const FigureTable& data) {
    const QString path = withDefaultExtension(requestedPath);
    FigureOptions options = withRoomForCategories(plot, requested);
    // A font that is not installed is drawn with a substitute: say so, draw with the substitute
    // by its name, and record that one (a figure's provenance must name the font it shows).
    QStringList warnings;
    const QString usedFont = resolvedFontFamily(options.style.fontFamily);
    const QString askedFont = options.style.fontFamily;
    if (usedFont.compare(askedFont, Qt::CaseInsensitive) != 0) {
        warnings << QStringLiteral("%1: font '%2' is not installed; drawn with '%3'")
                        .arg(path, askedFont, usedFont);
        options.style.fontFamily = usedFont;
    }
    const FigureFormat format = formatFromPath(path);
    if (!(options.widthIn > 0.5 && options.widthIn < 40) ||
        !(options.effectiveHeightIn() > 0.5 && options.effectiveHeightIn() < 40)) {
        throw InputError(str(path), "figure size", "a width and height between 0.5 and 40 inches");
    }
    if (options.dpi < 30 || options.dpi > 2400) {
        throw InputError(str(path), "dpi", "a resolution between 30 and 2400 dpi");
    }
    // Nothing is written over an input, nor over a file beside the figure that Reach did not
    // write for it: checked before the first byte is written.
    {
        OutputGuard guard;
        for (const QString& in : provenance.inputs + provenance.alsoRead)
            guard.addInput(str(in));
        guard.checkNamed(str(path));
        const PriorSidecars prior = priorSidecars(path, csvPathFor(path), jsonPathFor(path));
        guard.checkSidecar(str(csvPathFor(path)), prior.csvOurs, options.replaceSidecars);
        guard.checkSidecar(str(jsonPathFor(path)), prior.jsonOurs, options.replaceSidecars);
    }
    // Hash inputs first: a missing input must not leave a half-written figure behind.
    nlohmann::json inputs = nlohmann::json::array();
    for (const QString& in : provenance.inputs)
        inputs.push_back(inputRecord(in));

    // One plot unit = one point (1/72 in): PDF page, SVG viewBox and PNG scale all follow.
    const int w = std::max(1, int(std::lround(options.widthIn * 72.0)));
    const int h = std::max(1, int(std::lround(options.effectiveHeightIn() * 72.0)));
    const int dpi = plot.logicalDpiY() > 0 ? plot.logicalDpiY() : 96;
    const QString title = QStringLiteral("Reach %1: %2").arg(reachVersion(), provenance.figure);
    const QString creator = QStringLiteral("Reach %1").arg(reachVersion());
    QSize pixelSize;
    {
        PlotStyleGuard guard(plot);
        options.style.apply(plot, QSize(w, h));
        bool ok = false;
        if (format == FigureFormat::Pdf) {
            ok = plot.savePdf(path, w, h, QCP::epNoCosmetic, creator, title);
        } else if (format == FigureFormat::Svg) {
            QSvgGenerator svg;
            svg.setFileName(path);
            // The generator resolves point-size fonts with its resolution: the screen's, as
            // QCustomPlot measured them. Its size (at that resolution) gives the physical size.
            svg.setResolution(dpi);
            svg.setSize(QSize(int(std::lround(options.widthIn * dpi)),
                              int(std::lround(options.effectiveHeightIn() * dpi))));
            svg.setViewBox(QRect(0, 0, w, h));
            svg.setTitle(title);
            svg.setDescription(creator);
            QCPPainter painter;
            if (painter.begin(&svg)) {
                painter.setMode(QCPPainter::pmVectorized);
                painter.setMode(QCPPainter::pmNoCaching);
                painter.setMode(QCPPainter::pmNonCosmetic);
                plot.toPainter(&painter, w, h);
                ok = painter.end();
            }
        } else {
            pixelSize = QSize(int(std::lround(options.widthIn * options.dpi)),
                              int(std::lround(options.effectiveHeightIn() * options.dpi)));
            QImage image(pixelSize, QImage::Format_ARGB32_Premultiplied);
            // Text is measured at the screen's dpi; the painter scale does the rest.
            image.setDotsPerMeterX(int(std::lround(dpi / 0.0254)));
            image.setDotsPerMeterY(int(std::lround(dpi / 0.0254)));
            image.fill(Qt::white);
            QCPPainter painter;
            if (painter.begin(&image)) {
                painter.setRenderHint(QPainter::Antialiasing);
                painter.setRenderHint(QPainter::TextAntialiasing);
                painter.setRenderHint(QPainter::SmoothPixmapTransform);
                painter.setMode(QCPPainter::pmNoCaching);
                painter.scale(double(pixelSize.width()) / w, double(pixelSize.height()) / h);
                plot.toPainter(&painter, w, h);
                painter.end();
                image.setDotsPerMeterX(int(std::lround(options.dpi / 0.0254)));
                image.setDotsPerMeterY(int(std::lround(options.dpi / 0.0254)));
                ok = image.convertToFormat(QImage::Format_RGB32).save(path, "PNG");
            }
        }
        if (!ok)
            throw InputError(str(path), "file", "a writable output file");
    }

    const std::string csvText = figureTableCsv(data);
    writeFile(csvPathFor(path), csvText);

    nlohmann::json sliders = nlohmann::json::object();
    for (const auto& [name, value] : provenance.sliders)
        sliders[str(name)] = value;
    nlohmann::json rules = nullptr;
    if (!provenance.rulesName.isEmpty() || !provenance.rulesHash.isEmpty()) {
        rules = {{"name", str(provenance.rulesName)}, {"hash", str(provenance.rulesHash)}};
    }
    const char* formatName = format == FigureFormat::Pdf   ? "pdf"
                             : format == FigureFormat::Svg ? "svg"
                                                           : "png";
    nlohmann::json j = {
        {"figure", str(provenance.figure)},
        {"file", str(QFileInfo(path).fileName())},
        {"format", formatName},
        {"data_csv", str(QFileInfo(csvPathFor(path)).fileName())},
        {"data_csv_sha256", Sha256::hex(csvText)},
        {"width_in", w / 72.0},
        {"height_in", h / 72.0},
        {"font_family", str(usedFont)},
        {"font_pt", options.style.fontPt},
        {"inputs", inputs},
        {"rules", rules},
        {"sliders", sliders},
        {"reach_version", str(reachVersion())},
        {"qt_version", qVersion()},
        {"created_utc", str(QDateTime::currentDateTimeUtc().toString(Qt::ISODate))},
    };
    if (format == FigureFormat::Png) {
        j["dpi"] = options.dpi;
        j["width_px"] = pixelSize.width();
        j["height_px"] = pixelSize.height();
    }
    if (usedFont.compare(askedFont, Qt::CaseInsensitive) != 0)
        j["font_requested"] = str(askedFont);
    for (auto it = provenance.extra.begin(); it != provenance.extra.end(); ++it) {
        j[it.key()] = it.value();
    }
    writeFile(jsonPathFor(path), j.dump(2) + "\n");
    return {path, csvPathFor(path), jsonPathFor(path), warnings};
}

}  // namespace reach
