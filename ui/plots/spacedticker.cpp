#include "ui/plots/spacedticker.h"

#include <QFontMetricsF>

namespace reach {

namespace {

// QCPAxis::setupTickVectors is protected; a member pointer named through a derived class calls
// it without subclassing the plot's axes (the same reach-in as FigureStyle's BackgroundAccess).
struct AxisAccess : QCPAxis {
    static void setupTicks(QCPAxis& axis) { (axis.*(&AxisAccess::setupTickVectors))(); }
};

constexpr const char* kRetickConnected = "reach_spaced_ticker_connected";

int axisLength(const QCPAxis& axis) {
    const QCPAxisRect* rect = axis.axisRect();
    return axis.orientation() == Qt::Horizontal ? rect->width() : rect->height();
}

}  // namespace

void SpacedTextTicker::retickIfStale(QCustomPlot& plot) {
    for (QCPAxisRect* rect : plot.axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            auto spaced = axis->ticker().dynamicCast<SpacedTextTicker>();
            if (spaced && axis->visible() &&
                (spaced->m_thinnedLength != axisLength(*axis) ||
                 spaced->m_thinnedFont != axis->tickLabelFont())) {
                AxisAccess::setupTicks(*axis);
            }
        }
    }
}

SpacedTextTicker::SpacedTextTicker(QCPAxis& axis) : m_axis(&axis) {}

QSharedPointer<SpacedTextTicker> SpacedTextTicker::install(QCPAxis& axis) {
    auto ticker = QSharedPointer<SpacedTextTicker>::create(axis);
    axis.setTicker(ticker);
    QCustomPlot* plot = axis.parentPlot();
    if (plot && !plot->property(kRetickConnected).toBool()) {
        plot->setProperty(kRetickConnected, true);
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] { retickIfStale(*plot); });
    }
    return ticker;
}

QVector<double> SpacedTextTicker::spacedKeys() const {
    QVector<double> keys;  // the ticks the axis can draw: those in its range
    QStringList labels;
    if (!m_axis)
        return keys;
    const QCPAxis& axis = *m_axis;
    for (auto it = mTicks.cbegin(); it != mTicks.cend(); ++it) {
        if (axis.range().contains(it.key())) {
            keys << it.key();
            labels << it.value();
        }
    }
    if (axis.orientation() != Qt::Horizontal || keys.size() < 2)
        return keys;
    const QFontMetricsF tm(axis.tickLabelFont());
    const double gap = tm.horizontalAdvance(QLatin1Char('0'));
    qsizetype anchor = keys.indexOf(1.0);
    if (anchor < 0)
        anchor = 0;
    for (qsizetype k = 1; k < keys.size(); ++k) {
        bool clear = true;
        double lastRight = -1e300;
        for (qsizetype i = anchor % k; i < keys.size() && clear; i += k) {
            const double half = tm.horizontalAdvance(labels[i]) / 2;
            const double x = axis.coordToPixel(keys[i]);
            clear = x - half >= lastRight + gap;
            lastRight = x + half;
        }
        if (!clear)
            continue;
        QVector<double> kept;
        for (qsizetype i = anchor % k; i < keys.size(); i += k)
            kept << keys[i];
        return kept;
    }
    // Not even two labels fit: the one at 1 (or the first) alone.
    return {keys[anchor]};
}

QVector<double> SpacedTextTicker::createTickVector(double, const QCPRange&) {
    if (m_axis) {
        m_thinnedLength = axisLength(*m_axis);
        m_thinnedFont = m_axis->tickLabelFont();
    }
    return spacedKeys();
}

}  // namespace reach
