#include "ui/models/rulesuggestmodel.h"

#include <QStringList>

#include "core/analysis/kernelname.h"
#include "core/base/category.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

constexpr size_t kNameChars = 100;  // full names in tooltips, elided by core beyond this
constexpr int kNamesInTip = 12;

}  // namespace

RuleSuggestModel::RuleSuggestModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleSuggestModel::setEntries(std::vector<Entry> entries) {
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

void RuleSuggestModel::markAccepted(int r) {
    if (r < 0 || r >= rowCount())
        return;
    m_entries[size_t(r)].accepted = true;
    emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

int RuleSuggestModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_entries.size());
}

int RuleSuggestModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RuleSuggestModel::display(const Entry& e, int column) const {
    const RuleSuggestion& s = e.suggestion;
    switch (column) {
        case Workload:
            return e.workload;
        case Pattern:
            return toQString(s.rule.pattern);
        case CategoryColumn:
            // A guess is marked where it is shown: the user should check it before accepting.
            return toQString(categoryLabel(s.rule.category)) +
                   (s.guessed ? tr(" (guessed)") : QString());
        case Family:
            return toQString(s.rule.family);
        case Basis:
            return toQString(s.basis);
        case Kernels:
            return int(s.kernels.size());
        case TimeMs:
            return QString::number(s.totalUs / 1000.0, 'f', 3);
        case Share:
            return QString::number(100.0 * s.share, 'f', 2) + QStringLiteral(" %");
        case AlsoChanges:
            if (s.changesOthers == 0)
                return tr("nothing else");
            return tr("%n kernel(s), %1 ms", nullptr, int(s.changesOthers))
                .arg(s.changesOthersUs / 1000.0, 0, 'f', 3);
        case Accept:
            return e.accepted ? tr("accepted") : QString();
        default:
            return {};
    }
}

QVariant RuleSuggestModel::value(const Entry& e, int column) const {
    const RuleSuggestion& s = e.suggestion;
    switch (column) {
        case Kernels:
            return int(s.kernels.size());
        case TimeMs:
            return s.totalUs / 1000.0;
        case Share:
            return s.share;
        case AlsoChanges:
            return s.changesOthersUs / 1000.0;
        case Accept:
            return e.accepted;
        default:
            return display(e, column);
    }
}

QString RuleSuggestModel::toolTip(const Entry& e, int column) const {
    const RuleSuggestion& s = e.suggestion;
    switch (column) {
        case Pattern:
            return tr("%1\nName stem '%2': the rule matches kernel names containing this "
                      "POSIX extended regex (case-insensitive) and goes first in the rule set")
                .arg(toQString(s.rule.pattern), toQString(s.stem));
        case Kernels: {
            QStringList names;
            for (size_t k = 0; k < s.kernels.size() && int(k) < kNamesInTip; ++k)
                names << toQString(kernelDisplayName(s.kernels[k], kNameChars));
            if (int(s.kernels.size()) > kNamesInTip)
                names << tr("... %1 more").arg(int(s.kernels.size()) - kNamesInTip);
            return names.join(QLatin1Char('\n'));
        }
        case AlsoChanges:
            return tr(
                "Other kernels of this workload that the pattern also matches and whose "
                "category it would change");
        default:
            return display(e, column).toString();
    }
}

QVariant RuleSuggestModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Entry& e = m_entries[size_t(index.row())];
    switch (role) {
        case Qt::DisplayRole:
            return display(e, index.column());
        case ValueRole:
        case SortRole:
            return value(e, index.column());
        case KernelsRole: {
            QStringList names;
            for (const std::string& n : e.suggestion.kernels)
                names << toQString(n);
            return names;
        }
        case Qt::ToolTipRole:
            return toolTip(e, index.column());
        case Qt::TextAlignmentRole:
            if (index.column() == Kernels || index.column() == TimeMs || index.column() == Share)
                return int(Qt::AlignRight | Qt::AlignVCenter);
            return {};
        default:
            return {};
    }
}

QVariant RuleSuggestModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case Workload:
            return tr("Workload");
        case Pattern:
            return tr("Pattern");
        case CategoryColumn:
            return tr("Category");
        case Family:
            return tr("Family");
        case Basis:
            return tr("Category from");
        case Kernels:
            return tr("Kernels");
        case TimeMs:
            return tr("Time (ms)");
        case Share:
            return tr("Share");
        case AlsoChanges:
            return tr("Also re-classifies");
        case Accept:
            return QString();
        default:
            return {};
    }
}

}  // namespace reach
