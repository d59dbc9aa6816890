#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "core/analysis/rulesuggest.h"

namespace reach {

// The rules core proposes (core/analysis/rulesuggest.h, suggestRules) for the kernels no name
// rule matches, one row per suggestion, as a table. The rows are core's suggestions as they are,
// in its order (per workload, largest first); this model only formats them. ValueRole gives the
// raw number (ms, fraction, count), SortRole what sorts, KernelsRole the full names it covers.
class RuleSuggestModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Accept = 0,  // holds the row's one-click "Accept" button in the dialog
        Workload,
        Pattern,
        CategoryColumn,
        Family,
        Basis,
        Kernels,
        TimeMs,
        Share,
        AlsoChanges,
        ColumnCount
    };
    static constexpr int ValueRole = Qt::UserRole;
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int KernelsRole = Qt::UserRole + 2;  // QStringList of full names

    struct Entry {
        QString workload;
        RuleSuggestion suggestion;
        bool accepted = false;  // accepted in this dialog; the list is recomputed after it
    };

    explicit RuleSuggestModel(QObject* parent = nullptr);

    void setEntries(std::vector<Entry> entries);
    const Entry& entry(int r) const { return m_entries[size_t(r)]; }
    const std::vector<Entry>& entries() const { return m_entries; }
    void markAccepted(int r);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const Entry& e, int column) const;
    QVariant value(const Entry& e, int column) const;
    QString toolTip(const Entry& e, int column) const;

    std::vector<Entry> m_entries;
};

}  // namespace reach
