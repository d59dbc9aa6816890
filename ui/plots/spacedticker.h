#pragma once

#include <qcustomplot.h>
#include <QPointer>
#include <QSharedPointer>

namespace reach {

// A text ticker (labels at chosen keys: the speedup axis's powers of two) that draws on a
// horizontal axis only as many of its labels as the axis's current length holds without two
// running together: every k-th, counted from the tick at 1 (the speedup axis's "no change") or
// else the first, for the smallest k that leaves a gap of one "0" between neighbours. ticks()
// keeps every label; only what is drawn is thinned, each time the axis is laid out, so the same
// code serves the on-screen view at any window width and an exported figure at its page width.
class SpacedTextTicker : public QCPAxisTickerText {
public:
    explicit SpacedTextTicker(QCPAxis& axis);

    // Puts a new SpacedTextTicker on `axis` and returns it. Also makes the axis's plot
    // re-thin after every layout: ticks are generated before the plot lays itself out, with the
    // axis length of the previous layout, which a resize or an export has just changed.
    static QSharedPointer<SpacedTextTicker> install(QCPAxis& axis);

    // The keys whose labels are drawn at the axis's current length and tick-label font.
    QVector<double> spacedKeys() const;

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;

private:
    // Re-ticks every axis of `plot` with a SpacedTextTicker whose length or font moved.
    static void retickIfStale(QCustomPlot& plot);
    QPointer<QCPAxis> m_axis;
    // What the drawn ticks were last thinned for; the plot re-ticks the axis when either moved.
    int m_thinnedLength = -1;
    QFont m_thinnedFont;
};

}  // namespace reach
