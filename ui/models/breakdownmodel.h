#pragma once

#include <QAbstractTableModel>
#include <array>
#include <vector>

#include "core/base/category.h"
#include "core/project/project.h"
#include "ui/qtstrings.h"

namespace reach {

// One row per workload with the share of each category, the single source of truth for the
// breakdown plot (which copies these numbers) and for the CSV export. Shares are fractions of
// the GPU time, or of the profiled span (wall clock) when spanShares is on; in that mode the
// idle column holds the share of the span with no GPU activity.
class BreakdownModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Name = 0,
        Origin,
        LibraryOptimized,  // the four category columns are Category + LibraryOptimized
        Addressable,
        Overhead,
        Unclassified,
        Unsplit,  // published rows: the part the study did not split into categories
        Idle,     // span mode: share of the wall clock with no GPU work
        TotalMs,  // GPU time (or span) in milliseconds; empty for published rows
        ColumnCount
    };
    // Qt::UserRole on a share column: the raw fraction (double); on TotalMs: milliseconds.
    static constexpr int ValueRole = Qt::UserRole;
    // Per category: the operator-based split (fraction), NaN when the row has no operator links.
    static constexpr int OperatorShareRole = Qt::UserRole + 1;
    // Milliseconds of a category column (NaN for published rows).
    static constexpr int MillisecondsRole = Qt::UserRole + 2;

    explicit BreakdownModel(QObject* parent = nullptr);

    void setWorkloads(const std::vector<ProjectWorkload>& workloads);
    void setSpanShares(bool span);
    bool spanShares() const { return m_span; }

    const ProjectWorkload& workload(int row) const { return m_rows[size_t(row)].entry; }
    double share(int row, Category c) const;
    double operatorShare(int row, Category c) const;  // NaN when none
    double milliseconds(int row, Category c) const;   // NaN for published rows
    double unsplit(int row) const { return m_rows[size_t(row)].unsplit; }
    double idle(int row) const { return m_rows[size_t(row)].idle; }
    // Span mode asked of a row without a span (published): nothing to draw on that axis.
    bool spanUnknown(int row) const { return m_rows[size_t(row)].spanUnknown; }
    bool hasOperatorSplit(int row) const { return m_rows[size_t(row)].hasOp; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static int columnOf(Category c) { return LibraryOptimized + int(c); }

private:
    struct Row {
        ProjectWorkload entry;
        std::array<double, 4> share{};
        std::array<double, 4> ms{};
        std::array<double, 4> opShare{};
        bool hasOp = false;
        double unsplit = 0;
        double idle = 0;
        double totalMs = 0;
        bool spanUnknown = false;
    };
    void rebuild();
    Row makeRow(const ProjectWorkload& w) const;

    std::vector<ProjectWorkload> m_entries;
    std::vector<Row> m_rows;
    bool m_span = false;
};

}  // namespace reach
