#include "ui/models/breakdownmodel.h"

#include "core/project/figuredata.h"

#include <cmath>
#include <limits>

namespace reach {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

BreakdownModel::BreakdownModel(QObject* parent) : QAbstractTableModel(parent) {}

void BreakdownModel::setWorkloads(const std::vector<ProjectWorkload>& workloads) {
    m_entries = workloads;
    rebuild();
}

void BreakdownModel::setSpanShares(bool span) {
    if (span == m_span)
        return;
    m_span = span;
    rebuild();
}

void BreakdownModel::rebuild() {
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(m_entries.size());
    for (const ProjectWorkload& w : m_entries)
        m_rows.push_back(makeRow(w));
    endResetModel();
}

BreakdownModel::Row BreakdownModel::makeRow(const ProjectWorkload& w) const {
    const BreakdownBar bar = breakdownBar(w, m_span);  // the figure's numbers (core)
    Row row;
    row.entry = w;
    row.share = bar.share;
    row.ms = bar.ms;
    row.opShare = bar.opShare;
    row.hasOp = bar.hasOpSplit;
    row.unsplit = bar.unsplit;
    row.idle = bar.idle;
    row.totalMs = bar.totalMs;
    row.spanUnknown = bar.spanUnknown;
    return row;
}

double BreakdownModel::share(int row, Category c) const {
    return m_rows[size_t(row)].share[size_t(c)];
}
double BreakdownModel::operatorShare(int row, Category c) const {
    return m_rows[size_t(row)].opShare[size_t(c)];
}
double BreakdownModel::milliseconds(int row, Category c) const {
    return m_rows[size_t(row)].ms[size_t(c)];
}

int BreakdownModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BreakdownModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakdownModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const int col = index.column();
    const bool isCategory = col >= LibraryOptimized && col <= Unclassified;
    const size_t ci = size_t(col - LibraryOptimized);
    double value = kNaN;
    if (isCategory)
        value = r.share[ci];
    else if (col == Unsplit)
        value = r.unsplit;
    else if (col == Idle)
        value = r.idle;
    else if (col == TotalMs)
        value = r.totalMs;

    switch (role) {
        case Qt::DisplayRole:
            if (col == Name)
                return toQString(r.entry.name);
            if (col == Origin)
                return toQString(r.entry.origin);
            if (std::isnan(value))
                return QString();
            if (col == TotalMs)
                return QString::number(value, 'f', 2);
            if (!r.entry.published && !isCategory && value == 0)
                return QString();
            return QString::number(100.0 * value, 'f', 1) + QLatin1Char('%');
        case Qt::ToolTipRole:
            if (col == Name && r.entry.workload)
                return QString::fromStdString(r.entry.workload->source);
            if (isCategory && !std::isnan(r.ms[ci]))
                return tr("%1 ms").arg(r.ms[ci], 0, 'f', 3);
            return {};
        case Qt::TextAlignmentRole:
            return col >= LibraryOptimized ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        case ValueRole:
            if (col == Name || col == Origin)
                return {};
            return value;
        case OperatorShareRole:
            return isCategory ? QVariant(r.opShare[ci]) : QVariant();
        case MillisecondsRole:
            return isCategory ? QVariant(r.ms[ci]) : QVariant();
        default:
            return {};
    }
}

QVariant BreakdownModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case Name:
            return tr("Workload");
        case Origin:
            return tr("Source");
        case Unsplit:
            return tr("Not split");
        case Idle:
            return tr("GPU idle");
        case TotalMs:
            return m_span ? tr("Span (ms)") : tr("GPU time (ms)");
        default:
            if (section >= LibraryOptimized && section <= Unclassified)
                return toQString(categoryLabel(kCategories[size_t(section - LibraryOptimized)]));
            return {};
    }
}

}  // namespace reach
