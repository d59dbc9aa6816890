#pragma once

#include <QString>
#include <array>
#include <vector>

#include "core/base/category.h"
#include "core/project/figuredata.h"

#include <qcustomplot.h>

namespace reach {

class Session;

// The breakdown view's headroom bars: per workload, the GPU time that would be saved if every
// estimated kernel ran at its roofline (core's Headroom::headroomShare), as a share of GPU time,
// stacked by category so the addressable part (categoryHeadroomShare) reads off its own colour.
// Rows with an estimate run in the session's order, top to bottom, as in the breakdown above;
// the others are never drawn as a guess: the caption counts them by why.
class HeadroomPlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit HeadroomPlot(Session* session, QWidget* parent = nullptr);

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
    void fitLabels();
    void fitFooter();

    Session* m_session;
    std::array<QCPBars*, 4> m_bars{};
    QCPTextElement* m_footer = nullptr;
    QString m_footerText;                // unwrapped
    std::vector<QCPItemText*> m_labels;  // per session row; null for a row not drawn
    std::vector<double> m_keys;          // per session row; NaN for a row not drawn
    QStringList m_rowLabels;
    std::vector<double> m_totals;  // percent of GPU time, per row (0 without an estimate)
    double m_baseUpper = 1;
};

}  // namespace reach
