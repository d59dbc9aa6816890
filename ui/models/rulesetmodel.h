#pragma once

#include <QAbstractTableModel>

#include "core/analysis/ruleset.h"

namespace reach {

// The rule set as an editable table (pattern, category, family, note), in match order. Edits
// are validated (the pattern must compile, the category must be one of the four) and published
// as a whole new RuleSet through rulesEdited(), which the session re-classifies with.
class RuleSetModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pattern = 0, CategoryColumn, Family, Note, ColumnCount };

    explicit RuleSetModel(QObject* parent = nullptr);

    void setRules(const RuleSet& rules);  // resets the model
    const RuleSet& rules() const { return m_rules; }

    // Inserts a rule at `at` and emits rulesEdited. Returns false (and says why) when the
    // pattern is not a valid POSIX extended regular expression.
    bool insertRule(int at, const Rule& rule, QString* error = nullptr);
    bool removeRuleAt(int at);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static bool isValidPattern(const QString& pattern, QString* error = nullptr);

signals:
    void rulesEdited(const reach::RuleSet& rules);
    // An edit that was refused (a pattern that does not compile, an unknown category), with the
    // reason: the cell keeps its old value, and whoever shows messages says why.
    void editRejected(const QString& message);

private:
    RuleSet m_rules;
};

}  // namespace reach
