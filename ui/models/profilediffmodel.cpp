#include "ui/models/profilediffmodel.h"

#include <QStringList>

#include "core/analysis/kernelname.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

bool isKernelList(ProfileDiffModel::List l) {
    return l == ProfileDiffModel::List::Kernels || l == ProfileDiffModel::List::OnlyA ||
           l == ProfileDiffModel::List::OnlyB;
}

const std::vector<DiffRow>& rowsOf(const ProfileDiff& d, ProfileDiffModel::List l) {
    switch (l) {
        case ProfileDiffModel::List::Categories:
            return d.categories;
        case ProfileDiffModel::List::Families:
            return d.families;
        case ProfileDiffModel::List::Kernels:
            return d.kernels;
        case ProfileDiffModel::List::OnlyA:
            return d.onlyA;
        case ProfileDiffModel::List::OnlyB:
            break;
    }
    return d.onlyB;
}

QString signedMs(double us) {
    return (us > 0 ? QStringLiteral("+") : QString()) + QString::number(us / 1000.0, 'f', 3);
}

}  // namespace

ProfileDiffModel::ProfileDiffModel(List list, QObject* parent)
    : QAbstractTableModel(parent), m_list(list) {}

void ProfileDiffModel::setDiff(const ProfileDiff& diff) {
    beginResetModel();
    m_rows = rowsOf(diff, m_list);
    m_keys.clear();
    for (const DiffRow& r : m_rows) {
        if (m_list == List::Categories) {
            m_keys.push_back(toQString(categoryLabel(r.category)));
        } else if (isKernelList(m_list)) {
            // The key is already the display name; elide it here as the kernel table does.
            const std::string& full = r.aNames.empty() ? r.bNames.front() : r.aNames.front();
            m_keys.push_back(toQString(kernelDisplayName(full, kNameChars)));
        } else {
            m_keys.push_back(toQString(r.key));
        }
    }
    endResetModel();
}

void ProfileDiffModel::clear() {
    beginResetModel();
    m_rows.clear();
    m_keys.clear();
    endResetModel();
}

int ProfileDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProfileDiffModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileDiffModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const DiffRow& r = m_rows[size_t(index.row())];
    const int col = index.column();
    switch (role) {
        case Qt::DisplayRole:
            switch (col) {
                case Key:
                    return m_keys[size_t(index.row())];
                case Operator:
                    return toQString(r.op);
                case AMs:
                    return QString::number(r.aUs / 1000.0, 'f', 3);
                case AShare:
                    return QString::number(100.0 * r.aShare, 'f', 2) + QLatin1Char('%');
                case BMs:
                    return QString::number(r.bUs / 1000.0, 'f', 3);
                case BShare:
                    return QString::number(100.0 * r.bShare, 'f', 2) + QLatin1Char('%');
                case DeltaMs:
                    return signedMs(r.deltaUs());
                case DeltaShare:
                    return (r.deltaShare() > 0 ? QStringLiteral("+") : QString()) +
                           QString::number(100.0 * r.deltaShare(), 'f', 2) + tr(" pp");
            }
            return {};
        case ValueRole:
            switch (col) {
                case AMs:
                    return r.aUs / 1000.0;
                case AShare:
                    return r.aShare;
                case BMs:
                    return r.bUs / 1000.0;
                case BShare:
                    return r.bShare;
                case DeltaMs:
                    return r.deltaUs() / 1000.0;
                case DeltaShare:
                    return r.deltaShare();
                default:
                    return {};
            }
        case SortRole:
            if (col >= AMs)
                return data(index, ValueRole);
            return data(index, Qt::DisplayRole).toString().toLower();
        case Qt::ToolTipRole:
            if (col == Key && isKernelList(m_list)) {
                QStringList lines;
                for (const std::string& n : r.aNames)
                    lines << tr("A: %1").arg(toQString(n));
                for (const std::string& n : r.bNames)
                    lines << tr("B: %1").arg(toQString(n));
                lines << tr("calls: A %1, B %2").arg(r.aCalls).arg(r.bCalls);
                return lines.join(QLatin1Char('\n'));
            }
            return {};
        case FullNamesRole: {
            QStringList names;
            for (const std::string& n : r.aNames)
                names << toQString(n);
            for (const std::string& n : r.bNames)
                names << toQString(n);
            return names;
        }
        case Qt::TextAlignmentRole:
            return col >= AMs ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                              : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant ProfileDiffModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case Key:
            return m_list == List::Categories ? tr("Category")
                   : m_list == List::Families ? tr("Family")
                                              : tr("Kernel");
        case Operator:
            return tr("Operator");
        case AMs:
            return tr("A (ms)");
        case AShare:
            return tr("A share");
        case BMs:
            return tr("B (ms)");
        case BShare:
            return tr("B share");
        case DeltaMs:
            return tr("Change (ms)");
        case DeltaShare:
            return tr("Share change");
    }
    return {};
}

}  // namespace reach
