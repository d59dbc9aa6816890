#include "projectionmodel.h"

namespace reach {

ProjectionModel::ProjectionModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProjectionModel::setWorkloads(const std::vector<ProjectWorkload>& workloads) {
    beginResetModel();
    m_rows.clear();
    for (const ProjectWorkload& w : workloads)
        m_rows.push_back({w, {}});
    recompute();
    endResetModel();
}

void ProjectionModel::setParameters(double winRate, double medianSpeedup) {
    if (winRate == m_winRate && medianSpeedup == m_median)
        return;
    m_winRate = winRate;
    m_median = medianSpeedup;
    recompute();
    if (!m_rows.empty())
        emit dataChanged(index(0, GainPercent), index(rowCount() - 1, EndToEnd));
    emit parametersChanged();
}

void ProjectionModel::recompute() {
    for (Row& r : m_rows) {
        r.projection =
            projectSummary(r.entry.name, r.entry.addressableShare(), m_winRate, m_median);
    }
}

int ProjectionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProjectionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProjectionModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const Projection& p = r.projection;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Name:
                return toQString(r.entry.name);
            case Origin:
                return toQString(r.entry.origin);
            case AddressableShare:
                return QString::number(100.0 * p.addressableShare, 'f', 1) + QLatin1Char('%');
            case GainPercent:
                return QString::number(100.0 * p.savedShare, 'f', 2) + QLatin1Char('%');
            case EndToEnd:
                return QString::number(p.endToEndSpeedup, 'f', 4) + QLatin1Char('x');
        }
    }
    if (role == ValueRole) {
        switch (index.column()) {
            case AddressableShare:
                return p.addressableShare;
            case GainPercent:
                return 100.0 * p.savedShare;
            case EndToEnd:
                return p.endToEndSpeedup;
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= AddressableShare ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    return {};
}

QVariant ProjectionModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Workload", "Source", "Addressable", "Projected gain",
                                  "End-to-end"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace reach
