#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "core/analysis/profilediff.h"

namespace reach {

// One list of a comparison (core/analysis/profilediff.h: categories, families, kernels in both,
// only in A, only in B) as a table. The rows are core's DiffRows as they are; this model only
// formats them. Every change is B - A. ValueRole gives the raw number (ms or fraction),
// SortRole what sorts (numbers as numbers), FullNamesRole a kernel row's full names.
class ProfileDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class List { Categories, Families, Kernels, OnlyA, OnlyB };
    enum Column { Key = 0, Operator, AMs, AShare, BMs, BShare, DeltaMs, DeltaShare, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole;
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int FullNamesRole = Qt::UserRole + 2;  // QStringList: A's names, then B's
    static constexpr size_t kNameChars = 80;                // display names elided beyond this

    explicit ProfileDiffModel(List list, QObject* parent = nullptr);

    List list() const { return m_list; }
    // Shows the rows of this model's list in `diff` (a copy: the dialog may recompute).
    void setDiff(const ProfileDiff& diff);
    void clear();
    const DiffRow& row(int r) const { return m_rows[size_t(r)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    List m_list;
    std::vector<DiffRow> m_rows;
    std::vector<QString> m_keys;  // display text of each row's key, computed once
};

}  // namespace reach
