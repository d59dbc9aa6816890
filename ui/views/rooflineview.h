#pragma once

#include <QPoint>
#include <QString>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"

class QComboBox;
class QCPGraph;
class QCPTextElement;
class QCustomPlot;
class QLabel;

namespace reach {

class Session;
struct WorkloadHeadroom;

// The roofline scatter of one workload: one point per kernel at core's arithmetic intensity
// (FLOP/byte) and achieved FLOP/s on log axes, coloured by category, its area by time; the GPU's
// roofline (DRAM bandwidth up to the BF16 tensor and FP32 vector peaks of the row core picked
// from the trace's deviceProperties). Hover tells a point's numbers, a click selects its kernel
// (kernelClicked: the main window shows it in the breakdown's drill-down). Kernels without an
// estimate, and estimated ones without FLOPs (copies, gathers: no place on a FLOP/s axis), are
// never plotted: they are counted under the plot. Every number is core/headroom's.
class RooflineView : public QWidget {
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

    explicit RooflineView(Session* session, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QComboBox* workloadBox() const { return m_workload; }
    const std::vector<Point>& points() const { return m_points; }
    // The drawn roofline: BF16 tensor and FP32 vector ceilings over the plotted range.
    QCPGraph* rooflineGraph() const { return m_roofBf16; }
    QCPGraph* fp32RooflineGraph() const { return m_roofFp32; }
    // What is not plotted and why (under the plot, and in the figure's footer).
    QString noteText() const;
    QString footerText() const;

    // The workload shown, by session row (-1: none); the first one with an estimate by default.
    int workloadRow() const { return m_row; }
    void setWorkloadRow(int row);
    bool setWorkloadByName(const QString& name);
    // The highlighted kernel (full name; empty for none). selectKernel does not emit.
    QString selectedKernel() const { return m_selected; }
    bool selectKernel(const QString& fullName);
    // A point at plot pixel `pos` (within its radius + 3 px; the nearest, the one drawn on top
    // on a tie): its index in points(), else -1.
    int pointAt(const QPoint& pos) const;
    QPoint pixelOf(int index) const;
    QString tipText(int index) const;
    // A click at `pos`: selects the kernel there and emits kernelClicked; false when none.
    bool clickAt(const QPoint& pos);

    FigureTable figureData() const;

signals:
    void kernelClicked(int workloadRow, const QString& fullName, reach::Category category);

public slots:
    void refreshStyle();

private:
    void onWorkloadsChanged();
    void rebuild();
    void clearPoints();
    void drawRoofline(double xLow, double xHigh);
    void updateSelection();

    Session* m_session;
    QComboBox* m_workload;
    QLabel* m_note;
    QCustomPlot* m_plot;
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_footer = nullptr;
    QString m_footerText;  // unwrapped
    QCPGraph* m_roofBf16 = nullptr;
    QCPGraph* m_roofFp32 = nullptr;
    QCPGraph* m_ring = nullptr;  // the selected point's outline (screen only)
    std::vector<QCPGraph*> m_legendGraphs;
    std::vector<Point> m_points;
    std::shared_ptr<const WorkloadHeadroom> m_headroom;
    int m_row = -1;
    QString m_selected;
    QPoint m_pressPos;
};

}  // namespace reach
