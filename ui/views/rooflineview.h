#pragma once

#include <QPoint>
#include <QString>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"
#include "ui/plots/rooflineplot.h"

class QComboBox;
class QCPGraph;
class QCPTextElement;
class QCustomPlot;
class QLabel;

namespace reach {

class Session;
struct WorkloadHeadroom;

// The roofline of one workload of the session (ui/plots/rooflineplot.h) with a workload picker.
// Hover tells a point's numbers, a click selects its kernel (kernelClicked: the main window shows
// it in the breakdown's drill-down).
class RooflineView : public QWidget {
    Q_OBJECT
public:
    using Point = RooflinePlot::Point;

    explicit RooflineView(Session* session, QWidget* parent = nullptr);

    RooflinePlot* plot() const { return m_plot; }
    QComboBox* workloadBox() const { return m_workload; }
    const std::vector<Point>& points() const { return m_plot->points(); }
    // The drawn roofline: BF16 tensor and FP32 vector ceilings over the plotted range.
    QCPGraph* rooflineGraph() const { return m_plot->rooflineGraph(); }
    QCPGraph* fp32RooflineGraph() const { return m_plot->fp32RooflineGraph(); }
    // What is not plotted and why (under the plot, and in the figure's footer).
    QString noteText() const;
    QString footerText() const;

    // The workload shown, by session row (-1: none); the first one with an estimate by default.
    int workloadRow() const { return m_row; }
    void setWorkloadRow(int row);
    bool setWorkloadByName(const QString& name);
    // The highlighted kernel (full name; empty for none). selectKernel does not emit.
    QString selectedKernel() const { return m_plot->selectedKernel(); }
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

    Session* m_session;
    QComboBox* m_workload;
    QLabel* m_note;
    RooflinePlot* m_plot;
    int m_row = -1;
    QPoint m_pressPos;
};

}  // namespace reach
