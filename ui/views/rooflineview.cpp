#include "ui/views/rooflineview.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/analysis/kernelname.h"
#include "core/project/workloadheadroom.h"
#include "ui/figure/figurelabels.h"
#include "ui/figure/figurestyle.h"
#include "ui/plots/plotrows.h"
#include "ui/session.h"
#include "ui/theme.h"

namespace reach {

RooflineView::RooflineView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    m_workload = new QComboBox(this);
    m_workload->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_workload->setObjectName(QStringLiteral("rooflineWorkload"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Workload:"), this));
    controls->addWidget(m_workload);
    controls->addStretch(1);

    m_plot = new RooflinePlot(this);

    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    m_note->setObjectName(QStringLiteral("rooflineNote"));
    // What is not plotted is in the plot's caption (and so in the figure); this says how to read.
    m_note->setText(
        tr("Point area: kernel time. Hover a point for its numbers; a click selects "
           "its kernel here and in the breakdown's drill-down. The numbers are those of "
           "reach-cli headroom; the guide (F1) says how they are estimated."));

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_note);

    connect(m_workload, &QComboBox::activated, this, &RooflineView::setWorkloadRow);
    connect(m_session, &Session::workloadsChanged, this, &RooflineView::onWorkloadsChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int i = pointAt(e->pos());
        if (i < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(e->globalPosition().toPoint(), tipText(i), m_plot);
    });
    connect(m_plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* e) { m_pressPos = e->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if ((e->pos() - m_pressPos).manhattanLength() <= 3)
            clickAt(e->pos());
    });
    refreshStyle();
    onWorkloadsChanged();
}

void RooflineView::refreshStyle() {
    m_plot->refreshStyle();
}

void RooflineView::onWorkloadsChanged() {
    const auto& rows = m_session->workloads();
    const QString previous = m_row >= 0 && m_row < m_workload->count()
                                 ? m_workload->itemData(m_row).toString()
                                 : QString();
    {
        const QSignalBlocker block(m_workload);
        m_workload->clear();
        for (const ProjectWorkload& w : rows)
            m_workload->addItem(
                toQString(w.name) + QStringLiteral(" (") + toQString(w.origin) + QLatin1Char(')'),
                toQString(w.name));
    }
    // Keep the workload shown when it has an estimate; else show the first that has one (the
    // sample's published rows arrive before its profiles).
    int keep = -1;
    for (int r = 0; r < int(rows.size()) && keep < 0; ++r) {
        if (!previous.isEmpty() && toQString(rows[size_t(r)].name) == previous)
            keep = r;
    }
    const int row = rooflineRow(rows, keep);
    m_row = -2;  // force a rebuild
    setWorkloadRow(row);
}

void RooflineView::setWorkloadRow(int row) {
    const auto& rows = m_session->workloads();
    if (row >= int(rows.size()))
        row = -1;
    if (row == m_row)
        return;
    m_row = row;
    {
        const QSignalBlocker block(m_workload);
        m_workload->setCurrentIndex(row);
    }
    if (row >= 0)
        m_plot->setWorkload(rows[size_t(row)].name, headroomOf(rows[size_t(row)]));
    else
        m_plot->setWorkload({}, nullptr, true);
}

bool RooflineView::setWorkloadByName(const QString& name) {
    const auto& rows = m_session->workloads();
    for (int r = 0; r < int(rows.size()); ++r) {
        if (toQString(rows[size_t(r)].name) == name) {
            setWorkloadRow(r);
            return true;
        }
    }
    return false;
}

QString RooflineView::noteText() const {
    return m_plot->noteText();
}

QString RooflineView::footerText() const {
    return m_plot->footerText();
}

QPoint RooflineView::pixelOf(int index) const {
    return m_plot->pixelOf(index);
}

int RooflineView::pointAt(const QPoint& pos) const {
    return m_plot->pointAt(pos);
}

QString RooflineView::tipText(int index) const {
    return m_plot->tipText(index);
}

bool RooflineView::selectKernel(const QString& fullName) {
    return m_plot->selectKernel(fullName);
}

bool RooflineView::clickAt(const QPoint& pos) {
    const int i = pointAt(pos);
    if (i < 0)
        return false;
    const Point& p = m_plot->points()[size_t(i)];
    const QString name = toQString(p.name);
    const Category category = p.category;
    selectKernel(name);
    emit kernelClicked(m_row, name, category);
    return true;
}

FigureTable RooflineView::figureData() const {
    return m_plot->figureData();
}

}  // namespace reach
