#include "ui/plots/projectionheatplot.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/projection.h"
#include "ui/models/projectionmodel.h"
#include "ui/plots/plotrows.h"
#include "ui/theme.h"

namespace reach {

namespace {

constexpr int kHeatCells = 160;

// Viridis (perceptually uniform, colour-blind safe, prints in greyscale); QCustomPlot 2.1 has
// no preset for it.
QCPColorGradient viridis() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.00, QColor(68, 1, 84));
    g.setColorStopAt(0.25, QColor(59, 82, 139));
    g.setColorStopAt(0.50, QColor(33, 145, 140));
    g.setColorStopAt(0.75, QColor(94, 201, 98));
    g.setColorStopAt(1.00, QColor(253, 231, 37));
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    return g;
}

// The marks drawn on the map stand on viridis, not on the plot's background: they keep their
// colours in either palette. The benchmarks are white (the map's low end, where they sit, is
// dark); the current point is a black ring on white, its gain on a white ground.
const QColor kReferenceInk = Qt::white;
const QColor kMarkerRing = Qt::black;
const QColor kMarkerFill = QColor(255, 255, 255);
const QColor kMarkerLabelGround = QColor(255, 255, 255, 220);

const QString kCursorLayer = QStringLiteral("cursor");

}  // namespace

QString ProjectionHeatPlot::speedupText(double median) {
    return QString::number(median, 'g', 4) + QLatin1Char('x');
}

ProjectionHeatPlot::ProjectionHeatPlot(const ProjectionModel* model,
                                       const std::vector<Reference>& references, QWidget* parent)
    : QCustomPlot(parent), m_model(model) {
    setMinimumWidth(kPlotMinimumWidth);
    createColorMap();
    createTitle();
    createAxes();
    createReferences(references);
    createMarker();
    setMouseTracking(true);
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        fitReferenceLabels();
        fitTitle();
    });
}

void ProjectionHeatPlot::createColorMap() {
    m_map = new QCPColorMap(xAxis, yAxis);
    m_map->setSelectable(QCP::stNone);
    // Cell centres where core's projectionGrid evaluates the formula: the map shows its numbers.
    m_map->data()->setSize(kHeatCells, kHeatCells);
    m_map->data()->setRange(QCPRange(50.0 / kHeatCells, 100.0 - 50.0 / kHeatCells),
                            QCPRange(0.5 / kHeatCells, 1.0 - 0.5 / kHeatCells));
    m_map->setInterpolate(true);
    m_scale = new QCPColorScale(this);
    plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->axis()->setLabel(tr("Projected gain (%)"));
    m_scale->setBarWidth(12);
    m_map->setColorScale(m_scale);  // the map takes the scale's gradient: set it after
    m_scale->setGradient(viridis());
    m_map->setGradient(viridis());
}

void ProjectionHeatPlot::createTitle() {
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this, QString(), Theme::plotFont(9));
    plotLayout()->addElement(0, 0, m_title);
    plotLayout()->setRowStretchFactor(0, 0.001);
    // The map and its colour scale start and end at the same heights.
    auto* margins = new QCPMarginGroup(this);
    axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
}

void ProjectionHeatPlot::createAxes() {
    // y is log10(median): the ticks name the medians.
    xAxis->setLabel(tr("Win rate (%)"));
    yAxis->setLabel(tr("Median speedup of winners"));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (double m : {1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0})
        ticker->addTick(std::log10(m), speedupText(m));
    yAxis->setTicker(ticker);
    xAxis->setRange(0, 100);
    yAxis->setRange(0, 1);
}

void ProjectionHeatPlot::createReferences(const std::vector<Reference>& references) {
    m_references = addGraph();
    m_references->setLineStyle(QCPGraph::lsNone);
    m_references->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDiamond, kReferenceInk, kReferenceInk, 6));
    m_references->setSelectable(QCP::stNone);
    for (const Reference& r : references) {
        const double x = 100.0 * r.winRate, y = std::log10(r.median);
        m_references->addData(x, y);
        auto* text = new QCPItemText(this);
        text->setSelectable(false);
        text->setFont(Theme::plotFont(7));
        text->setColor(kReferenceInk);
        text->setText(r.name);
        text->position->setCoords(x + 3.0, y);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        m_referenceLabels.push_back(text);
    }
}

void ProjectionHeatPlot::createMarker() {
    // The moving point lives on its own buffered layer: a slider move repaints only that layer.
    addLayer(kCursorLayer, layer(QStringLiteral("main")), QCustomPlot::limAbove);
    layer(kCursorLayer)->setMode(QCPLayer::lmBuffered);
    m_marker = addGraph();
    m_marker->setLayer(kCursorLayer);
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kMarkerRing, 2), kMarkerFill, 11));
    m_marker->setSelectable(QCP::stNone);
    m_markerLabel = new QCPItemText(this);
    m_markerLabel->setLayer(kCursorLayer);
    m_markerLabel->setSelectable(false);
    m_markerLabel->setFont(Theme::plotFont(8));
    m_markerLabel->setColor(Theme::textOn(kMarkerLabelGround));
    m_markerLabel->setBrush(kMarkerLabelGround);
    m_markerLabel->setPadding(QMargins(3, 1, 3, 1));
    m_markerLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
}

void ProjectionHeatPlot::refreshStyle() {
    Theme::stylePlot(this);
    xAxis->grid()->setVisible(false);
    yAxis->grid()->setVisible(false);
    m_scale->axis()->setBasePen(Qt::NoPen);
    m_scale->axis()->setTickLabelColor(plotTextColor());
    m_scale->axis()->setLabelColor(plotTextColor());
    m_scale->axis()->setTickLabelFont(Theme::plotFont(8));
    m_scale->axis()->setLabelFont(Theme::plotFont(9));
    m_title->setTextColor(plotTextColor());
    updateMarker();
    replot(QCustomPlot::rpQueuedReplot);
}

bool ProjectionHeatPlot::hasRow() const {
    return m_row >= 0 && m_row < m_model->rowCount();
}

void ProjectionHeatPlot::setRow(int row, const QString& name) {
    m_row = row;
    QCPColorMapData* data = m_map->data();
    const bool valid = hasRow();
    const double a = valid ? m_model->projection(m_row).addressableShare : 0.0;
    const ProjectionGrid grid = projectionGrid(a, kHeatCells, 10.0);
    for (int xi = 0; xi < kHeatCells; ++xi) {
        for (int yi = 0; yi < kHeatCells; ++yi)
            data->setCell(xi, yi, valid ? grid.at(xi, yi) : 0.0);
    }
    m_map->setDataRange(QCPRange(0, std::max(valid ? grid.maxGainPercent : 0.0, 0.01)));
    // Two lines, the name elided to the plot's width when it is laid out (fitTitle): one line
    // ran past both edges of a narrow heat map.
    m_titleText = valid ? tr("%1\naddressable %2%").arg(name).arg(100.0 * a, 0, 'f', 1) : QString();
    m_title->setText(m_titleText);
    replot(QCustomPlot::rpQueuedReplot);
    updateMarker();
}

void ProjectionHeatPlot::updateMarker() {
    const double x = 100.0 * m_model->winRate(), y = std::log10(m_model->medianSpeedup());
    m_marker->setData(QVector<double>{x}, QVector<double>{y}, true);
    const bool valid = hasRow();
    m_markerLabel->setVisible(valid);
    if (valid) {
        m_markerLabel->setText(tr("%1%").arg(m_model->gainPercent(m_row), 0, 'f', 2));
        m_markerLabel->position->setCoords(std::min(x + 1.5, 85.0), std::min(y + 0.02, 0.93));
    }
    layer(kCursorLayer)->replot();
}

void ProjectionHeatPlot::fitReferenceLabels() {
    // A benchmark's name that would run past the map's right edge goes left of its diamond.
    const QRect map = axisRect()->rect();
    for (QCPItemText* t : m_referenceLabels) {
        const double x =
            t->position->key() + (t->positionAlignment() & Qt::AlignRight ? 3.0 : -3.0);
        const double px = xAxis->coordToPixel(x);
        const double textWidth = QFontMetricsF(t->font()).horizontalAdvance(t->text());
        const bool fitsRight = px + 6 + textWidth <= map.right();
        t->setPositionAlignment((fitsRight ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        t->position->setCoords(fitsRight ? x + 3.0 : x - 3.0, t->position->value());
        // A map too narrow for the name on either side shows the diamond alone (the presets
        // and the assumptions under the plots name both benchmarks).
        t->setVisible(fitsRight || px - 6 - textWidth >= map.left());
    }
}

void ProjectionHeatPlot::fitTitle() {
    // The title's own cell (the map's column; the colour scale has the other): at 1280x720 a
    // title fitted to the whole plot was cut at both ends of its column (issue 40, defect 10).
    const double cell = m_title->outerRect().width();
    const double width = (cell > 0 ? cell : plotLayout()->outerRect().width()) - 8;
    fitWinRateTicks();
    if (width <= 0 || m_titleText.isEmpty())
        return;
    const QFontMetricsF tm(m_title->font());
    QStringList lines = m_titleText.split(QLatin1Char('\n'));
    for (QString& line : lines)
        line = tm.elidedText(line, Qt::ElideMiddle, width);
    const QString text = lines.join(QLatin1Char('\n'));
    if (text == m_title->text())
        return;
    m_title->setText(text);
    plotLayout()->update(QCPLayoutElement::upPreparation);
    plotLayout()->update(QCPLayoutElement::upMargins);
    plotLayout()->update(QCPLayoutElement::upLayout);
}

void ProjectionHeatPlot::fitWinRateTicks() {
    // Five ticks of "100" need ~5 labels' widths; a narrow map printed "80100" merged: then
    // 0, 50, 100.
    const double room = axisRect()->width();
    const double label =
        QFontMetricsF(xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("100"));
    const int count = room >= 5 * 2.2 * label ? 5 : room >= 3 * 2.2 * label ? 3 : 2;
    if (xAxis->ticker()->tickCount() == count)
        return;
    xAxis->ticker()->setTickCount(count);
    xAxis->ticker()->setTickOrigin(0);
}

std::optional<ProjectionHeatPlot::Point> ProjectionHeatPlot::pointAt(const QPoint& pos) const {
    if (!axisRect()->rect().contains(pos) || !hasRow())
        return std::nullopt;
    Point p;
    p.winRate = std::clamp(xAxis->pixelToCoord(pos.x()) / 100.0, 0.0, 1.0);
    p.median = std::clamp(std::pow(10.0, yAxis->pixelToCoord(pos.y())), 1.0, 10.0);
    // The formula's one implementation (core), for the row shown.
    const Projection& row = m_model->projection(m_row);
    p.gainPercent =
        100.0 * projectSummary(row.name, row.addressableShare, p.winRate, p.median).savedShare;
    return p;
}

}  // namespace reach
