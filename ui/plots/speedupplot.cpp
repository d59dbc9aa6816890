#include "ui/plots/speedupplot.h"

#include "core/project/figuredata.h"
#include "core/records/recordstats.h"
#include "ui/plots/spacedticker.h"

#include <qcustomplot.h>
#include <algorithm>
#include <cmath>

namespace reach {

namespace {

// Okabe-Ito without black and without vermillion (which marks suspicious points): stays
// distinguishable under the common colour-vision deficiencies and in greyscale print.
const QColor kSetColors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00),
                             QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                             QColor(0x56, 0xb4, 0xe9), QColor(0xf0, 0xe4, 0x42)};

QString factorText(double v) {
    return QString::number(v, 'g', v < 0.1 ? 2 : 4) + QStringLiteral("×");
}

// Evenly spread, reproducible vertical jitter for the strip plot (golden-ratio sequence).
double jitter(int i) {
    const double f = std::fmod(double(i) * 0.6180339887498949, 1.0);
    return (f - 0.5) * 0.5;
}

QCPItemStraightLine* verticalLine(QCustomPlot& plot, double x, const QPen& pen) {
    auto* line = new QCPItemStraightLine(&plot);
    line->point1->setType(QCPItemPosition::ptPlotCoords);
    line->point2->setType(QCPItemPosition::ptPlotCoords);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(pen);
    line->setSelectable(false);
    return line;
}

// Which record each plotted point is, for the CSV beside an exported figure.
QStringList pointLabels(const RecordsModel& model, const std::vector<std::vector<RecordRef>>& pts) {
    QStringList labels;
    for (const auto& refs : pts) {
        QStringList names;
        for (RecordRef r : refs) {
            const EvalRecord& rec = model.record(r);
            names << QString::fromStdString(rec.problemName.empty() ? rec.problemId
                                                                    : rec.problemName) +
                         (rec.model.empty()
                              ? QString()
                              : QStringLiteral(" (%1)").arg(QString::fromStdString(rec.model)));
        }
        labels << names.join(QStringLiteral("; "));
    }
    return labels;
}

// The legend carries the statistics (long lines): above the axes it never hides a point.
void placeLegendAbove(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    legend->setVisible(true);
    if (legend->layout() != plot.plotLayout()) {
        if (auto* inset = qobject_cast<QCPLayoutInset*>(legend->layout()))
            inset->take(legend);
        plot.plotLayout()->insertRow(0);
        plot.plotLayout()->addElement(0, 0, legend);
        plot.plotLayout()->setRowStretchFactor(0, 0.001);
        plot.plotLayout()->setRowSpacing(0);
    }
    // Tall enough for the suspicious ring, spaced so descenders (the "_" of file names) show.
    legend->setIconSize(14, 10);
    legend->setRowSpacing(1);
    legend->setMargins(QMargins(2, 2, 2, 2));
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
}

}  // namespace

QColor SpeedupPlot::setColor(int set) {
    return kSetColors[size_t(set) % (sizeof kSetColors / sizeof kSetColors[0])];
}

std::vector<RecordRef> SpeedupPlot::plottedRecords(const RecordsModel& model, int set) {
    std::vector<RecordRef> refs;
    const auto& records = model.sets().at(size_t(set)).records;
    for (size_t i = 0; i < records.size(); ++i) {
        const EvalRecord& r = records[i];
        if (isPlottedSpeedup(r))
            refs.push_back({set, int(i)});
    }
    std::stable_sort(refs.begin(), refs.end(), [&](RecordRef a, RecordRef b) {
        return *records[size_t(a.record)].speedup < *records[size_t(b.record)].speedup;
    });
    return refs;
}

QString SpeedupPlot::legendText(const RecordsModel& model, int set) {
    const RecordStats& st = model.stats(set);
    QString text = QStringLiteral("%1: win %2% (%3/%4)")
                       .arg(model.sets().at(size_t(set)).name)
                       .arg(st.winRate * 100, 0, 'f', 1)
                       .arg(st.winners)
                       .arg(st.denominator);
    if (st.medianSpeedup) {
        text += QStringLiteral(", median %1×").arg(*st.medianSpeedup, 0, 'f', 3);
    }
    if (st.winThreshold != 1.0)
        text += QStringLiteral(", win = above %1×").arg(st.winThreshold, 0, 'g', 4);
    // Only correct records with a speedup are drawn: say how many are not.
    const auto& records = model.sets().at(size_t(set)).records;
    const auto drawn = size_t(std::count_if(records.begin(), records.end(), isPlottedSpeedup));
    if (drawn < records.size())
        text += QObject::tr("; %1 of %2 drawn (incorrect or no speedup: not drawn)")
                    .arg(drawn)
                    .arg(records.size());
    return text;
}

void SpeedupPlot::build(QCustomPlot& plot, const RecordsModel& model, Mode mode) {
    clear(plot);
    const Extent extent = extentOf(model);
    std::vector<Mark> marks;
    double yMax = 1;  // the tallest histogram bin
    for (int s = 0; s < int(extent.refs.size()); ++s) {
        if (!extent.refs[size_t(s)].empty())
            yMax = std::max(yMax, addSetGraph(plot, model, mode, s, extent, marks));
    }
    if (!marks.empty())
        addSuspiciousGraph(plot, model, mode, std::move(marks));
    verticalLine(plot, 1.0, QPen(QColor(0x40, 0x40, 0x40), 0.9));
    setSpeedupAxis(*plot.xAxis, extent);
    setValueAxis(*plot.yAxis, model, mode, yMax);
    placeLegendAbove(plot);
    plot.replot(QCustomPlot::rpQueuedReplot);
}

void SpeedupPlot::clear(QCustomPlot& plot) {
    plot.clearPlottables();
    plot.clearItems();
    m_points.clear();
    m_pointOf.clear();
    m_setPlottables.clear();
    m_suspicious = nullptr;
}

int SpeedupPlot::Extent::binOf(double v) const {
    return std::clamp(int(std::floor(std::log2(v) / kBinOctaves)), firstBin, lastBin - 1);
}

SpeedupPlot::Extent SpeedupPlot::extentOf(const RecordsModel& model) {
    const int nSets = int(model.sets().size());
    Extent e;
    e.refs.resize(size_t(std::max(nSets, 0)));
    for (int s = 0; s < nSets; ++s) {
        e.refs[size_t(s)] = plottedRecords(model, s);
        for (RecordRef r : e.refs[size_t(s)]) {
            e.lo = std::min(e.lo, *model.record(r).speedup);
            e.hi = std::max(e.hi, *model.record(r).speedup);
        }
    }
    // Histogram bins are shared by every set so the steps line up: kBinOctaves wide in log2.
    e.firstBin = int(std::floor(std::log2(e.lo) / kBinOctaves));
    e.lastBin = std::max(e.firstBin + 1, int(std::ceil(std::log2(e.hi) / kBinOctaves)));
    return e;
}

double SpeedupPlot::addSetGraph(QCustomPlot& plot, const RecordsModel& model, Mode mode, int set,
                                const Extent& extent, std::vector<Mark>& marks) {
    const auto& pts = extent.refs[size_t(set)];
    const QColor color = setColor(set);
    auto* graph = new QCPGraph(plot.xAxis, plot.yAxis);
    graph->setName(legendText(model, set));
    graph->setProperty("reach_series", model.sets()[size_t(set)].name);
    QPen pen(color, 1.2);
    graph->setPen(pen);
    Series series;
    double tallest = 0;
    if (mode == Mode::Histogram) {
        series = histogramSteps(model, pts, extent, marks);
        tallest = *std::max_element(series.values.begin(), series.values.end());
        graph->setLineStyle(QCPGraph::lsStepLeft);
        QColor fill = color;
        fill.setAlpha(60);
        graph->setBrush(fill);
    } else {
        // Strip rows run top to bottom in the sets' order.
        const double row = int(extent.refs.size()) - 1 - set;
        series = pointSeries(model, mode, row, pts, marks);
        graph->setLineStyle(mode == Mode::Strip ? QCPGraph::lsNone : QCPGraph::lsStepLeft);
        QColor fill = color;
        fill.setAlpha(mode == Mode::Strip ? 140 : 255);
        graph->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, color, fill, mode == Mode::Strip ? 5 : 3));
    }
    graph->setData(series.keys, series.values, true);
    graph->setProperty("reach_point_labels", pointLabels(model, series.behind));
    m_points.insert(graph, std::move(series.behind));
    m_setPlottables.insert(set, graph);

    if (const auto& median = model.stats(set).medianSpeedup) {
        QPen dashed(color, 1.0, Qt::DashLine);
        verticalLine(plot, *median, dashed);
    }
    return tallest;
}

SpeedupPlot::Series SpeedupPlot::histogramSteps(const RecordsModel& model,
                                                const std::vector<RecordRef>& pts,
                                                const Extent& extent, std::vector<Mark>& marks) {
    auto speedupOf = [&](RecordRef r) { return *model.record(r).speedup; };
    Series out;
    std::vector<std::vector<RecordRef>> bins(size_t(extent.lastBin - extent.firstBin));
    for (RecordRef r : pts)
        bins[size_t(extent.binOf(speedupOf(r)) - extent.firstBin)].push_back(r);
    for (int b = extent.firstBin; b < extent.lastBin; ++b) {
        out.keys << std::exp2(b * kBinOctaves);
        out.values << double(bins[size_t(b - extent.firstBin)].size());
        out.behind.push_back(bins[size_t(b - extent.firstBin)]);
    }
    out.keys << std::exp2(extent.lastBin * kBinOctaves);  // closes the last step
    out.values << out.values.back();
    out.behind.push_back({});
    // A record's point is its speedup on the axis line, where its mark is drawn too.
    for (RecordRef r : pts) {
        m_pointOf.insert(RecordsModel::keyFor(r), QPointF(speedupOf(r), 0.0));
        if (model.isSuspicious(r))
            marks.push_back({speedupOf(r), 0.0, r});
    }
    return out;
}

SpeedupPlot::Series SpeedupPlot::pointSeries(const RecordsModel& model, Mode mode, double row,
                                             const std::vector<RecordRef>& pts,
                                             std::vector<Mark>& marks) {
    Series out;
    for (size_t i = 0; i < pts.size(); ++i) {
        out.keys << *model.record(pts[i]).speedup;
        out.values << (mode == Mode::Strip ? row + jitter(int(i))
                                           : double(i + 1) / double(pts.size()));
        out.behind.push_back({pts[i]});
        m_pointOf.insert(RecordsModel::keyFor(pts[i]), QPointF(out.keys.back(), out.values.back()));
        if (model.isSuspicious(pts[i]))
            marks.push_back({out.keys.back(), out.values.back(), pts[i]});
    }
    return out;
}

void SpeedupPlot::addSuspiciousGraph(QCustomPlot& plot, const RecordsModel& model, Mode mode,
                                     std::vector<Mark> marks) {
    std::stable_sort(marks.begin(), marks.end(),
                     [](const Mark& a, const Mark& b) { return a.key < b.key; });
    auto* sus = new QCPGraph(plot.xAxis, plot.yAxis);
    sus->setName(QObject::tr("suspicious (flagged or failed verification)"));
    sus->setLineStyle(QCPGraph::lsNone);
    sus->setScatterStyle(QCPScatterStyle(
        mode == Mode::Histogram ? QCPScatterStyle::ssCross : QCPScatterStyle::ssCircle,
        QPen(suspiciousColor(), 1.3), Qt::NoBrush, mode == Mode::Histogram ? 6 : 9));
    Series series;
    for (const Mark& m : marks) {
        series.keys << m.key;
        series.values << m.value;
        series.behind.push_back({m.ref});
    }
    sus->setData(series.keys, series.values, true);
    sus->setProperty("reach_series", QStringLiteral("suspicious"));
    sus->setProperty("reach_point_labels", pointLabels(model, series.behind));
    m_points.insert(sus, std::move(series.behind));
    m_suspicious = sus;
}

void SpeedupPlot::setSpeedupAxis(QCPAxis& x, const Extent& extent) {
    // x: log2 speedup with ticks at powers of two.
    x.setScaleType(QCPAxis::stLogarithmic);
    const double pad = std::exp2(kBinOctaves);
    const double xlo = std::min(extent.lo, std::exp2(extent.firstBin * kBinOctaves)) / pad;
    const double xhi = std::max(extent.hi, std::exp2(extent.lastBin * kBinOctaves)) * pad;
    x.setRange(xlo, xhi);
    // Every power of two is a tick; SpacedTextTicker draws as many as the axis's length holds.
    auto ticker = SpacedTextTicker::install(x);
    const int k0 = int(std::ceil(std::log2(xlo))), k1 = int(std::floor(std::log2(xhi)));
    for (int k = k0; k <= k1; ++k)
        ticker->addTick(std::exp2(k), factorText(std::exp2(k)));
    x.setLabel(QObject::tr("speedup over baseline (log2 axis)"));
    x.grid()->setVisible(true);
}

void SpeedupPlot::setValueAxis(QCPAxis& y, const RecordsModel& model, Mode mode, double yMax) {
    y.setScaleType(QCPAxis::stLinear);
    if (mode == Mode::Strip) {
        // One row per set, named on the axis.
        const int nSets = int(model.sets().size());
        auto rows = QSharedPointer<QCPAxisTickerText>::create();
        for (int s = 0; s < nSets; ++s)
            rows->addTick(nSets - 1 - s, model.sets()[size_t(s)].name);
        y.setTicker(rows);
        y.setLabel(QString());
        y.setRange(-0.6, std::max(nSets, 1) - 0.4);
        y.grid()->setVisible(false);
        return;
    }
    y.setTicker(QSharedPointer<QCPAxisTicker>::create());
    if (mode == Mode::Histogram) {
        // Counts of candidates: whole numbers only.
        auto fixed = QSharedPointer<QCPAxisTickerFixed>::create();
        fixed->setTickStep(1.0);
        fixed->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        y.setTicker(fixed);
        y.setLabel(QObject::tr("correct candidates"));
        y.setRange(-0.4, yMax * 1.15 + 0.5);
    } else {
        y.setLabel(QObject::tr("cumulative share"));
        y.setRange(0, 1.04);
    }
    y.grid()->setVisible(true);
}

std::vector<RecordRef> SpeedupPlot::recordsAt(const QCPAbstractPlottable* plottable,
                                              int dataIndex) const {
    auto it = m_points.constFind(plottable);
    if (it == m_points.constEnd() || dataIndex < 0 || dataIndex >= int(it->size()))
        return {};
    return (*it)[size_t(dataIndex)];
}

std::optional<QPointF> SpeedupPlot::pointOf(RecordRef ref) const {
    const auto it = m_pointOf.constFind(RecordsModel::keyFor(ref));
    if (it == m_pointOf.constEnd())
        return std::nullopt;
    return *it;
}

QString SpeedupPlot::recordTooltip(const RecordsModel& model, RecordRef ref) {
    const EvalRecord& r = model.record(ref);
    auto qs = [](const std::string& s) { return QString::fromStdString(s); };
    QString text = qs(r.problemName.empty() ? r.problemId : r.problemName);
    QStringList who;
    for (const std::string& part : {r.model, r.backend, r.dtype}) {
        if (!part.empty())
            who << qs(part);
    }
    if (!who.isEmpty())
        text += QStringLiteral(" (%1)").arg(who.join(QStringLiteral(", ")));
    text += QLatin1Char('\n') + model.sets().at(size_t(ref.set)).name;
    if (r.speedup) {
        const double threshold = model.winThreshold();
        text += QObject::tr("\nspeedup %1×: %2")
                    .arg(*r.speedup, 0, 'f', 3)
                    .arg(isWin(r.speedup, r.correct, threshold)
                             ? QObject::tr("a win")
                             : QObject::tr("not a win (%1 %2×)")
                                   .arg(r.correct ? QStringLiteral("≤") : QObject::tr("incorrect,"))
                                   .arg(threshold, 0, 'g', 4));
    }
    text += QObject::tr("\nverification: %1").arg(qs(std::string(verificationKey(r.verification))));
    for (const Suspicion& s : model.suspicions(ref))
        text += QObject::tr("\nflag: %1").arg(qs(s.reason));
    return text;
}

FigureExporter::Written SpeedupPlot::exportFigure(const RecordsModel& model, Mode mode,
                                                  const QString& path, const FigureOptions& options,
                                                  const FigureProvenance& provenance) {
    QCustomPlot plot;
    SpeedupPlot builder;
    builder.build(plot, model, mode);
    return FigureExporter::exportFigure(plot, path, options, provenance, dataTable(model));
}

FigureTable SpeedupPlot::dataTable(const RecordsModel& model) {
    std::vector<std::string> names;
    for (const RecordSet& s : model.sets())
        names.push_back(s.name.toStdString());
    std::vector<NamedRecords> sets;
    for (size_t i = 0; i < model.sets().size(); ++i)
        sets.push_back({names[i], &model.sets()[i].records});
    return speedupFigureTable(sets);
}

}  // namespace reach
