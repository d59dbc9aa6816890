#include "kernelmodel.h"

#include "core/analysis/kernelname.h"
#include "ui/qtstrings.h"

namespace reach {

KernelModel::KernelModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelModel::setSelection(std::shared_ptr<const Breakdown> breakdown, Category category,
                               size_t limit) {
    beginResetModel();
    m_breakdown = std::move(breakdown);
    m_category = category;
    m_kernels.clear();
    m_displayNames.clear();
    if (m_breakdown)
        m_kernels = m_breakdown->top(category, limit);
    for (const ClassifiedKernel* k : m_kernels)
        m_displayNames.push_back(toQString(kernelDisplayName(k->stats.name, kNameChars)));
    endResetModel();
}

void KernelModel::clear() {
    setSelection(nullptr, m_category);
}

double KernelModel::share(int row) const {
    const double total = m_breakdown ? m_breakdown->gpuTimeUs : 0.0;
    return total > 0 ? m_kernels[size_t(row)]->stats.totalUs / total : 0.0;
}

int KernelModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_kernels.size());
}

int KernelModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_kernels.size()))
        return {};
    const ClassifiedKernel& k = *m_kernels[size_t(index.row())];
    const int col = index.column();
    switch (role) {
        case Qt::DisplayRole:
            switch (col) {
                case Name:
                    return m_displayNames[size_t(index.row())];
                case Family:
                    return QString::fromStdString(k.family);
                case Calls:
                    return QString::number(k.stats.calls);
                case TimeMs:
                    return QString::number(k.stats.totalUs / 1000.0, 'f', 3);
                case Share:
                    return QString::number(100.0 * share(index.row()), 'f', 2) + QLatin1Char('%');
            }
            return {};
        case Qt::ToolTipRole:
            if (col == Name) {
                QString tip = QString::fromStdString(k.stats.name);
                if (!k.stats.dominantOperator().empty())
                    tip += tr("\nlaunched by %1")
                               .arg(QString::fromStdString(k.stats.dominantOperator()));
                return tip;
            }
            return {};
        case Qt::TextAlignmentRole:
            return col >= Calls ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        case ValueRole:
            switch (col) {
                case Calls:
                    return qlonglong(k.stats.calls);
                case TimeMs:
                    return k.stats.totalUs / 1000.0;
                case Share:
                    return share(index.row());
                default:
                    return {};
            }
        case FullNameRole:
            return QString::fromStdString(k.stats.name);
        default:
            return {};
    }
}

QVariant KernelModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Kernel", "Family", "Calls", "Time (ms)", "Share"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace reach
