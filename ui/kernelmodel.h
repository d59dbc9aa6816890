#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "core/analysis/breakdown.h"

namespace reach {

// The drill-down: the largest kernels of one category in one workload. The Name column shows
// core's kernelDisplayName (templates make kernel names kilobytes long); the full name is the
// tooltip and FullNameRole.
class KernelModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name = 0, Family, Calls, TimeMs, Share, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole;  // raw number (calls, ms, fraction)
    static constexpr int FullNameRole = Qt::UserRole + 1;
    static constexpr size_t kNameChars = 80;  // longer display names are elided in the middle

    explicit KernelModel(QObject* parent = nullptr);

    // Shows up to `limit` kernels of `category`; a null breakdown empties the table.
    void setSelection(std::shared_ptr<const Breakdown> breakdown, Category category,
                      size_t limit = 50);
    void clear();

    Category category() const { return m_category; }
    const Breakdown* breakdown() const { return m_breakdown.get(); }
    const ClassifiedKernel& kernel(int row) const { return *m_kernels[size_t(row)]; }
    double share(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Breakdown> m_breakdown;
    Category m_category = Category::Unclassified;
    std::vector<const ClassifiedKernel*> m_kernels;
    std::vector<QString> m_displayNames;  // computed once per selection, not per paint
};

}  // namespace reach
