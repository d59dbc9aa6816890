#pragma once

#include <QColor>
#include <QHash>
#include <QPointF>
#include <QString>
#include <QVector>
#include <optional>
#include <vector>

#include "ui/models/recordsmodel.h"

#include "ui/figure/figureexporter.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPAxis;

namespace reach {

// Fills a QCustomPlot with the distribution of per-kernel speedups of a RecordsModel: one colour
// per evaluation set, log2 speedup axis, lines at 1x and at each set's median (of the winners),
// win rate and median in the legend, suspicious records marked. Builds from the model only, so
// the GUI view and `reach-cli figure speedups` draw the same figure. Keeps the map from plotted
// points back to records for clicks.
class SpeedupPlot {
public:
    enum class Mode { Histogram, Strip, Ecdf };

    // Which records are drawn: correct by the harness and timed (a speedup of a wrong kernel
    // means nothing), ascending by speedup within each set.
    static std::vector<RecordRef> plottedRecords(const RecordsModel& model, int set);
    static QString legendText(const RecordsModel& model, int set);
    static QColor setColor(int set);
    static QColor suspiciousColor() { return QColor(0xd5, 0x5e, 0x00); }
    // Histogram bin width in octaves (log2 units).
    static constexpr double kBinOctaves = 0.25;

    void build(QCustomPlot& plot, const RecordsModel& model, Mode mode);
    // Builds the figure off screen and writes it with FigureExporter (headless export for
    // `reach-cli figure speedups`, which must not touch QCustomPlot itself: only ui/ does).
    static FigureExporter::Written exportFigure(const RecordsModel& model, Mode mode,
                                                const QString& path, const FigureOptions& options,
                                                const FigureProvenance& provenance);

    // What the figure plots, as the table its CSV is written from.
    static FigureTable dataTable(const RecordsModel& model);

    // The records behind a clicked data point (one for strip/ECDF points and marks, all of the
    // bin's for a histogram step); empty for anything else.
    std::vector<RecordRef> recordsAt(const QCPAbstractPlottable* plottable, int dataIndex) const;
    // The plottable holding set `set`'s distribution (nullptr when the set has no points).
    QCPAbstractPlottable* setPlottable(int set) const { return m_setPlottables.value(set); }
    QCPAbstractPlottable* suspiciousPlottable() const { return m_suspicious; }
    // Where a record's point is drawn (plot coordinates); nullopt when it is not drawn. In a
    // histogram that is its speedup on the axis line.
    std::optional<QPointF> pointOf(RecordRef ref) const;
    // One record as a hover tooltip: problem, model and backend, speedup, whether it is a win,
    // the verdict and every flag.
    static QString recordTooltip(const RecordsModel& model, RecordRef ref);

private:
    // Every set's plotted records and the speedups they span, with the histogram's bins
    // (kBinOctaves wide in log2, shared by every set so the steps line up).
    struct Extent {
        std::vector<std::vector<RecordRef>> refs;  // per set, as plottedRecords
        double lo = 1.0, hi = 1.0;
        int firstBin = 0, lastBin = 1;
        int binOf(double speedup) const;
    };
    // A suspicious record's point, marked again on top of its set's.
    struct Mark {
        double key, value;
        RecordRef ref;
    };
    // One graph's points and the records behind each (what a click on it selects).
    struct Series {
        QVector<double> keys, values;
        std::vector<std::vector<RecordRef>> behind;
    };

    void clear(QCustomPlot& plot);
    static Extent extentOf(const RecordsModel& model);
    // Set `set`'s graph in `mode` and its median line; returns its tallest histogram bin (0 in
    // the other modes). Its suspicious records are added to `marks`.
    double addSetGraph(QCustomPlot& plot, const RecordsModel& model, Mode mode, int set,
                       const Extent& extent, std::vector<Mark>& marks);
    Series histogramSteps(const RecordsModel& model, const std::vector<RecordRef>& pts,
                          const Extent& extent, std::vector<Mark>& marks);
    // Strip (jittered about `row`) or ECDF points, one per record.
    Series pointSeries(const RecordsModel& model, Mode mode, double row,
                       const std::vector<RecordRef>& pts, std::vector<Mark>& marks);
    void addSuspiciousGraph(QCustomPlot& plot, const RecordsModel& model, Mode mode,
                            std::vector<Mark> marks);
    static void setSpeedupAxis(QCPAxis& x, const Extent& extent);
    static void setValueAxis(QCPAxis& y, const RecordsModel& model, Mode mode, double yMax);

    QHash<const QCPAbstractPlottable*, std::vector<std::vector<RecordRef>>> m_points;
    QHash<int, QCPAbstractPlottable*> m_setPlottables;
    QCPAbstractPlottable* m_suspicious = nullptr;
    QHash<QString, QPointF> m_pointOf;  // RecordsModel::keyFor(ref) -> its point
};

}  // namespace reach
