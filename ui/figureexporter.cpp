#include "ui/figureexporter.h"

#include <qcustomplot.h>
#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSaveFile>
#include <QSvgGenerator>
#include <charconv>
#include <cmath>

#include "core/base/inputerror.h"

#ifndef REACH_VERSION
#define REACH_VERSION "0.1.0"
#endif

namespace reach {

namespace {

std::string str(const QString& s) {
    return s.toStdString();
}

// Shortest text that reads back as the same double, so the CSV equals the plotted values.
std::string number(double v) {
    if (std::isnan(v))
        return "nan";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string csvField(const QString& s) {
    std::string t = str(s);
    if (t.find_first_of(",\"\n\r") == std::string::npos)
        return t;
    std::string q = "\"";
    for (char c : t) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + "\"";
}

// Category labels of a bar chart live in a text ticker; keep them next to the numeric key.
QString keyLabel(QCPAxis* axis, double key) {
    if (!axis)
        return {};
    auto text = axis->ticker().dynamicCast<QCPAxisTickerText>();
    if (!text)
        return {};
    auto it = text->ticks().constFind(key);
    return it != text->ticks().constEnd() ? it.value() : QString();
}

// QCPBars::getStackedBaseValue is protected; the stack below a bar is summed the same way.
double stackedBase(const QCPBars* bars, double key) {
    double base = 0;
    for (const QCPBars* below = bars->barBelow(); below; below = below->barBelow()) {
        auto it = below->data()->findBegin(key, false);
        if (it != below->data()->constEnd() && qFuzzyCompare(it->key + 1, key + 1)) {
            base += it->value;
        }
    }
    return base;
}

void writeFile(const QString& path, const std::string& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()) || !f.commit()) {
        throw InputError(str(path), "file",
                         "a writable output file (" + str(f.errorString()) + ")");
    }
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

std::string FigureExporter::sha256File(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        throw InputError(str(path), "file", "a readable input file (" + str(f.errorString()) + ")");
    }
    QCryptographicHash h(QCryptographicHash::Sha256);
    if (!h.addData(&f))
        throw InputError(str(path), "file", "a readable input file");
    return h.result().toHex().toStdString();
}

std::string FigureExporter::plotDataCsv(QCustomPlot& plot) {
    std::string out = "series,key,label,value,base,z\n";
    auto row = [&out](const QString& series, double key, const QString& label, double value,
                      std::optional<double> base, std::optional<double> z) {
        out += csvField(series) + ',' + number(key) + ',' + csvField(label) + ',' + number(value) +
               ',' + (base ? number(*base) : "") + ',' + (z ? number(*z) : "") + '\n';
    };
    for (int i = 0; i < plot.plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot.plottable(i);
        if (!p->visible())
            continue;
        // Plot builders may name a series more plainly than its legend entry does, and label
        // each point with what it is (a record, a workload).
        const QVariant series = p->property("reach_series");
        const QString name = series.isValid() ? series.toString() : p->name();
        const QStringList pointLabels = p->property("reach_point_labels").toStringList();
        auto labelAt = [&](int index, QCPAxis* axis, double key) {
            return index < pointLabels.size() ? pointLabels[index] : keyLabel(axis, key);
        };
        if (auto* bars = qobject_cast<QCPBars*>(p)) {
            int index = 0;
            for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd();
                 ++it, ++index) {
                row(name, it->key, labelAt(index, bars->keyAxis(), it->key), it->value,
                    stackedBase(bars, it->key), std::nullopt);
            }
        } else if (auto* graph = qobject_cast<QCPGraph*>(p)) {
            int index = 0;
            for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd();
                 ++it, ++index) {
                row(name, it->key, labelAt(index, graph->keyAxis(), it->key), it->value,
                    std::nullopt, std::nullopt);
            }
        } else if (auto* curve = qobject_cast<QCPCurve*>(p)) {
            for (auto it = curve->data()->constBegin(); it != curve->data()->constEnd(); ++it) {
                row(name, it->key, {}, it->value, std::nullopt, std::nullopt);
            }
        } else if (auto* map = qobject_cast<QCPColorMap*>(p)) {
            QCPColorMapData* d = map->data();
            for (int x = 0; x < d->keySize(); ++x) {
                for (int y = 0; y < d->valueSize(); ++y) {
                    double k = 0, v = 0;
                    d->cellToCoord(x, y, &k, &v);
                    row(name, k, {}, v, std::nullopt, d->cell(x, y));
                }
            }
        }
    }
    return out;
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

}  // namespace

FigureExporter::Written FigureExporter::exportFigure(QCustomPlot& plot, const QString& path,
                                                     const FigureOptions& requested,
                                                     const FigureProvenance& provenance) {
    const FigureOptions options = withRoomForCategories(plot, requested);
    const FigureFormat format = formatFromPath(path);
    if (!(options.widthIn > 0.5 && options.widthIn < 40) ||
        !(options.effectiveHeightIn() > 0.5 && options.effectiveHeightIn() < 40)) {
        throw InputError(str(path), "figure size", "a width and height between 0.5 and 40 inches");
    }
    if (options.dpi < 30 || options.dpi > 2400) {
        throw InputError(str(path), "dpi", "a resolution between 30 and 2400 dpi");
    }
    // Hash inputs first: a missing input must not leave a half-written figure behind.
    nlohmann::json inputs = nlohmann::json::array();
    for (const QString& in : provenance.inputs) {
        inputs.push_back(
            {{"path", str(in)}, {"sha256", sha256File(in)}, {"bytes", QFileInfo(in).size()}});
    }

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

    writeFile(csvPathFor(path), plotDataCsv(plot));

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
        {"width_in", w / 72.0},
        {"height_in", h / 72.0},
        {"font_family", str(options.style.fontFamily)},
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
    for (auto it = provenance.extra.begin(); it != provenance.extra.end(); ++it) {
        j[it.key()] = it.value();
    }
    writeFile(jsonPathFor(path), j.dump(2) + "\n");
    return {path, csvPathFor(path), jsonPathFor(path)};
}

}  // namespace reach
