#pragma once

#include <QAbstractTableModel>
#include <limits>
#include <memory>
#include <vector>

#include "core/analysis/breakdown.h"

namespace reach {

// The drill-down: every kernel of one category in one workload, largest first. The Name column
// shows core's kernelDisplayName (templates make kernel names kilobytes long); the full name is
// the tooltip and FullNameRole. Operator is the launching (dominant) operator, "Decided by" what
// classified the kernel (ClassifiedKernel::decidedBy: "rule 12", "operator aten::mm", "kind",
// "unclassified"). SortRole sorts numbers as numbers; SearchRole is the text a filter searches
// (display and full name, operator, family, decided by).
class KernelModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name = 0, Operator, DecidedBy, Family, Calls, TimeMs, Share, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole;  // raw number (calls, ms, fraction)
    static constexpr int FullNameRole = Qt::UserRole + 1;
    static constexpr int SortRole = Qt::UserRole + 2;
    static constexpr int SearchRole = Qt::UserRole + 3;
    static constexpr size_t kNameChars = 80;  // longer display names are elided in the middle

    explicit KernelModel(QObject* parent = nullptr);

    // Shows up to `limit` kernels of `category` (all by default); a null breakdown empties it.
    void setSelection(std::shared_ptr<const Breakdown> breakdown, Category category,
                      size_t limit = std::numeric_limits<size_t>::max());
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
    struct RowText {
        QString display, full, op, decidedBy, search;
    };
    std::vector<RowText> m_text;  // computed once per selection, not per paint
};

}  // namespace reach
