#pragma once

#include <QPoint>
#include <QString>
#include <optional>
#include <vector>

#include <qcustomplot.h>

namespace reach {

class ProjectionModel;

// The projection's heat map: for one workload of a ProjectionModel, the study's projected gain
// A*w*(1-1/m) over (win rate, median speedup of winners), y on a log10 scale, with the study's
// benchmarks as named diamonds and the model's current (w, m) as a ringed point with its gain.
// It paints a model it does not own and knows no GUI session: the projection view picks the
// row and turns hovers and clicks into the sliders' values. A slider move calls updateMarker()
// only: the point is on its own buffered layer.
class ProjectionHeatPlot : public QCustomPlot {
    Q_OBJECT
public:
    // A point named on the map (the study's benchmark summaries).
    struct Reference {
        QString name;
        double winRate = 0, median = 1;
    };
    // A point of the map: its (w, m) and the projected gain there (percent of GPU time).
    struct Point {
        double winRate = 0, median = 1, gainPercent = 0;
    };

    ProjectionHeatPlot(const ProjectionModel* model, const std::vector<Reference>& references,
                       QWidget* parent = nullptr);

    // Shows model row `row` (-1: none), titled `name`: every cell, the colour scale, the marker.
    void setRow(int row, const QString& name);
    int row() const { return m_row; }
    // After the model's (w, m) changed: the marker and its gain only.
    void updateMarker();

    QCPColorMap* colorMap() const { return m_map; }
    QCPGraph* marker() const { return m_marker; }
    // The map's point at `pos` (widget pixels), by core's formula for the row shown; nullopt
    // outside the map or without a row.
    std::optional<Point> pointAt(const QPoint& pos) const;
    // A median speedup as the map's axis writes it ("1.5x").
    static QString speedupText(double median);

public slots:
    void refreshStyle();

private:
    void createColorMap();
    void createTitle();
    void createAxes();
    void createReferences(const std::vector<Reference>& references);
    void createMarker();
    void fitReferenceLabels();
    void fitWinRateTicks();
    void fitTitle();
    bool hasRow() const;

    const ProjectionModel* m_model;
    int m_row = -1;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPGraph* m_marker = nullptr;
    QCPGraph* m_references = nullptr;
    QCPItemText* m_markerLabel = nullptr;
    QCPTextElement* m_title = nullptr;
    QString m_titleText;                          // unelided
    std::vector<QCPItemText*> m_referenceLabels;  // the benchmarks' names beside their diamonds
};

}  // namespace reach
