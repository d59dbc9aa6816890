#pragma once

#include <QString>
#include <array>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"

#include <qcustomplot.h>

#include "core/project/project.h"

namespace reach {

// The breakdown view's headroom bars: per workload, the GPU time that would be saved if every
// estimated kernel ran at its roofline (core's Headroom::headroomShare), as a share of GPU time,
// stacked by category so the addressable part (categoryHeadroomShare) reads off its own colour.
// Rows with an estimate run in the given order, top to bottom, as in the breakdown above;
// the others are never drawn as a guess: the caption counts them by why. It paints what it is
// given (setWorkloads): the breakdown view feeds it the session's rows, `reach-cli figure` a
// project's, with no GUI session.
class HeadroomPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit HeadroomPlot(QWidget* parent = nullptr);

    void setWorkloads(std::vector<ProjectWorkload> rows);

    QCPBars* bars(Category c) const { return m_bars[size_t(c)]; }
    // The text printed after a row's bar (its total and addressable headroom); for a row
    // without an estimate, which gets no bar, "no estimate: why" (the caption counts them).
    QString rowLabel(int row) const;
    // Plot key of a session row's bar; NaN for a row without an estimate.
    double keyOfRow(int row) const;
    QString footerText() const;
    FigureTable figureData() const;

public slots:
    void refreshStyle();

private:
    void rebuild();
    void fitRowNames();
    void fitLabels();
    void fitFooter();

    std::vector<ProjectWorkload> m_rows;
    std::array<QCPBars*, 4> m_bars{};
    QCPTextElement* m_footer = nullptr;
    QString m_footerText;                // unwrapped
    std::vector<QCPItemText*> m_labels;  // per session row; null for a row not drawn
    std::vector<double> m_keys;          // per session row; NaN for a row not drawn
    QStringList m_rowLabels;
    std::vector<double> m_totals;  // percent of GPU time, per row (0 without an estimate)
    double m_baseUpper = 1;
    // The drawn rows' names by key, and every how many the axis names (1; more when rows are
    // closer than a line: the breakdown's lower tab at 1280x720, issue 40 defect 7).
    std::vector<std::pair<double, QString>> m_tickNames;
    int m_tickStride = 1;
};

}  // namespace reach
