#include "ui/models/rulesetmodel.h"

#include "ui/qtstrings.h"
#include "ui/theme.h"

namespace reach {

RuleSetModel::RuleSetModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleSetModel::setRules(const RuleSet& rules) {
    beginResetModel();
    m_rules = rules;
    endResetModel();
}

bool RuleSetModel::isValidPattern(const QString& pattern, QString* error) {
    // Ask the core, which compiles patterns with the same engine it classifies with.
    if (pattern.isEmpty()) {
        if (error)
            *error = tr("the pattern is empty");
        return false;
    }
    const auto problem = RuleSet::patternError(pattern.toStdString());
    if (problem && error)
        *error = tr("not a valid regular expression: %1").arg(QString::fromStdString(*problem));
    return !problem;
}

bool RuleSetModel::insertRule(int at, const Rule& rule, QString* error) {
    if (!isValidPattern(QString::fromStdString(rule.pattern), error))
        return false;
    at = std::clamp(at, 0, rowCount());
    beginInsertRows({}, at, at);
    m_rules.insertRule(size_t(at), rule);
    endInsertRows();
    emit rulesEdited(m_rules);
    return true;
}

bool RuleSetModel::removeRuleAt(int at) {
    if (at < 0 || at >= rowCount())
        return false;
    beginRemoveRows({}, at, at);
    m_rules.removeRule(size_t(at));
    endRemoveRows();
    emit rulesEdited(m_rules);
    return true;
}

int RuleSetModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rules.rules().size());
}

int RuleSetModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RuleSetModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Rule& r = m_rules.rules()[size_t(index.row())];
    if (role == Qt::DisplayRole || role == Qt::EditRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case Pattern:
                return QString::fromStdString(r.pattern);
            case CategoryColumn:
                return toQString(categoryLabel(r.category));
            case Family:
                return QString::fromStdString(r.family);
            case Note:
                return QString::fromStdString(r.note);
        }
    }
    if (role == Qt::DecorationRole && index.column() == CategoryColumn)
        return Theme::categoryColor(r.category);
    return {};
}

bool RuleSetModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole || index.row() >= rowCount())
        return false;
    Rule rule = m_rules.rules()[size_t(index.row())];
    const QString text = value.toString().trimmed();
    switch (index.column()) {
        case Pattern: {
            QString why;
            if (!isValidPattern(text, &why)) {
                emit editRejected(
                    tr("rule %1: pattern '%2' refused: %3").arg(index.row() + 1).arg(text, why));
                return false;
            }
            rule.pattern = text.toStdString();
            break;
        }
        case CategoryColumn: {
            const auto c = categoryFromString(text.toStdString());
            if (!c) {
                emit editRejected(tr("rule %1: category '%2' refused: expected "
                                     "library-optimized, addressable, overhead or unclassified")
                                      .arg(index.row() + 1)
                                      .arg(text));
                return false;
            }
            rule.category = *c;
            break;
        }
        case Family:
            rule.family = text.toStdString();
            break;
        case Note:
            rule.note = text.toStdString();
            break;
        default:
            return false;
    }
    m_rules.replaceRule(size_t(index.row()), rule);
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    emit rulesEdited(m_rules);
    return true;
}

Qt::ItemFlags RuleSetModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QVariant RuleSetModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o == Qt::Vertical && role == Qt::DisplayRole)
        return section + 1;  // match order
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Pattern", "Category", "Family", "Note"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace reach
