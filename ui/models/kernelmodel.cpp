#include "ui/models/kernelmodel.h"

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
    m_text.clear();
    if (m_breakdown)
        m_kernels = m_breakdown->top(category, limit);
    m_text.reserve(m_kernels.size());
    for (const ClassifiedKernel* k : m_kernels) {
        RowText t;
        t.display = toQString(kernelDisplayName(k->stats.name, kNameChars));
        t.full = toQString(k->stats.name);
        t.op = toQString(k->stats.dominantOperator());
        t.decidedBy = toQString(k->decidedBy());
        t.search = QStringList{t.display, t.full, t.op, toQString(k->family), t.decidedBy}.join(
            QLatin1Char('\n'));
        m_text.push_back(std::move(t));
    }
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
    const RowText& text = m_text[size_t(index.row())];
    const int col = index.column();
    switch (role) {
        case Qt::DisplayRole:
            switch (col) {
                case Name:
                    return text.display;
                case Operator:
                    return text.op;
                case DecidedBy:
                    return text.decidedBy;
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
                QString tip = text.full;
                if (!text.op.isEmpty())
                    tip += tr("\nlaunched by %1").arg(text.op);
                return tip;
            }
            if (col == Operator && !k.stats.operators.empty()) {
                // Every operator that launched it, not only the dominant one.
                QStringList ops;
                for (const OperatorTime& o : k.stats.operators)
                    ops << tr("%1: %2 ms").arg(toQString(o.op)).arg(o.totalUs / 1000.0, 0, 'f', 3);
                return ops.join(QLatin1Char('\n'));
            }
            if (col == DecidedBy)
                return tr(
                    "Which decided the category: a name rule (its index in the rule set), "
                    "the launching operator's table row, the activity kind, or nothing");
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
        case SortRole:
            if (col >= Calls)
                return data(index, ValueRole);
            return data(index, Qt::DisplayRole).toString().toLower();
        case SearchRole:
            return text.search;
        case FullNameRole:
            return text.full;
        default:
            return {};
    }
}

QVariant KernelModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Kernel", "Operator",  "Decided by", "Family",
                                  "Calls",  "Time (ms)", "Share"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace reach
