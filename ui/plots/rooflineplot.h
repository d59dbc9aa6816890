#pragma once

#include <QPoint>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"

#include <qcustomplot.h>

namespace reach {

struct WorkloadHeadroom;

// The roofline scatter of one workload: one point per kernel at core's arithmetic intensity
// (FLOP/byte) and achieved FLOP/s on log axes, coloured by category, its area by time; the GPU's
// roofline (DRAM bandwidth up to the BF16 tensor and FP32 vector peaks of the row core picked
// from the trace's deviceProperties). Kernels without an estimate, and estimated ones without
// FLOPs (copies, gathers: no place on a FLOP/s axis), are never plotted: they are counted in the
// caption. Every number is core/headroom's. It paints the workload it is given and knows no GUI
// session: the roofline view adds the workload picker, the hover and the clicks; `reach-cli
// figure roofline` paints it alone.
class RooflinePlot : public QCustomPlot {
    Q_OBJECT
public:
    // One plotted kernel, as core computed it.
    struct Point {
        std::string name;  // the kernel's full name
        std::string op;
        Category category = Category::Unclassified;
        double intensity = 0;       // FLOP per byte
        double flopsPerSecond = 0;  // achieved
        double us = 0;              // its time (the point's area)
        double fractionOfSol = 0;
        double diameterPx = 0;
        QCPGraph* graph = nullptr;
    };

    explicit RooflinePlot(QWidget* parent = nullptr);

    // The workload shown: its name and core's estimate (null headroom, or an empty name with
    // `none`: no workload).
    void setWorkload(const std::string& name, std::shared_ptr<const WorkloadHeadroom> headroom,
                     bool none = false);
    const std::vector<Point>& points() const { return m_points; }
    // The drawn roofline: BF16 tensor and FP32 vector ceilings over the plotted range.
    QCPGraph* rooflineGraph() const { return m_roofBf16; }
    QCPGraph* fp32RooflineGraph() const { return m_roofFp32; }
    // What is not plotted and why (in the caption under the plot).
    QString noteText() const;
    QString footerText() const;
    // The highlighted kernel (full name; empty for none); false when it is not plotted.
    QString selectedKernel() const { return m_selected; }
    bool selectKernel(const QString& fullName);
    // A point at plot pixel `pos` (within its radius + 3 px; the nearest, the one drawn on top
    // on a tie): its index in points(), else -1.
    int pointAt(const QPoint& pos) const;
    QPoint pixelOf(int index) const;
    QString tipText(int index) const;
    FigureTable figureData() const;

public slots:
    void refreshStyle();

private:
    void rebuild();
    void clearPoints();
    void drawRoofline(double xLow, double xHigh);
    void updateSelection();
    void wrapFooter();

    std::string m_name;
    bool m_none = true;
    std::shared_ptr<const WorkloadHeadroom> m_headroom;
    QCPTextElement* m_footer = nullptr;
    QString m_footerText;  // unwrapped
    QCPGraph* m_roofBf16 = nullptr;
    QCPGraph* m_roofFp32 = nullptr;
    QCPGraph* m_ring = nullptr;  // the selected point's outline (screen only)
    std::vector<QCPGraph*> m_legendGraphs;
    std::vector<Point> m_points;
    QString m_selected;
};

}  // namespace reach
