#pragma once

#include <QDialog>
#include <array>
#include <optional>

#include "core/analysis/profilediff.h"
#include "ui/models/profilediffmodel.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace reach {

class Session;

// View > Compare Workloads...: two measured workloads of the open project, A (before) and B
// (after), compared by core's diffBreakdowns (the computation behind `reach-cli diff`): GPU time,
// busy share of the span, and tables per category, family and kernel (in both, only in A, only
// in B), each sortable. It follows the session: a re-classification recomputes it.
// The projection check (`reach-cli diff --candidate REGEX=SPEEDUP`): a candidate's pattern and
// speedup, core's checkCandidates on the same diff, the projected saving on A's GPU time and on
// A's wall clock next to the saving B measured.
class ComparisonDialog : public QDialog {
    Q_OBJECT
public:
    explicit ComparisonDialog(Session* session, QWidget* parent = nullptr);

    // Picks the workloads by their row in the session's list; false unless both are measured.
    bool compare(int a, int b);
    // The comparison shown; empty until two measured workloads are picked.
    const std::optional<ProfileDiff>& diff() const { return m_diff; }
    ProfileDiffModel* model(ProfileDiffModel::List list) const { return m_models[size_t(list)]; }
    QString summary() const;
    QComboBox* pickerA() const { return m_a; }
    QComboBox* pickerB() const { return m_b; }

    // The candidate of the projection check; an empty pattern switches it off.
    void setCandidate(const QString& pattern, double speedup);
    QLineEdit* candidatePattern() const { return m_candidatePattern; }
    QDoubleSpinBox* candidateSpeedup() const { return m_candidateSpeedup; }
    // Core's check of the candidate against the comparison shown; empty without a candidate or
    // when its pattern does not compile (projectionNote() then says why).
    const std::optional<ProjectionCheck>& projectionCheck() const { return m_check; }
    // Rows ProjectedRow, MeasuredKernelsRow, MeasuredTotalRow; columns SavingColumn (ms),
    // GpuShareColumn and WallShareColumn (%); Qt::UserRole holds the raw number (us, fraction).
    enum ProjectionRow { ProjectedRow = 0, MeasuredKernelsRow, MeasuredTotalRow };
    enum ProjectionColumn { SavingColumn = 0, GpuShareColumn, WallShareColumn };
    QTableWidget* projectionTable() const { return m_projection; }
    QString projectionNote() const;

private:
    void fillPickers();
    void recompute();
    void recomputeCheck();
    void showCheck();
    QWidget* buildProjectionCheck();

    Session* m_session;
    QComboBox* m_a;
    QComboBox* m_b;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    std::array<ProfileDiffModel*, 5> m_models{};
    std::optional<ProfileDiff> m_diff;
    QLineEdit* m_candidatePattern;
    QDoubleSpinBox* m_candidateSpeedup;
    QTableWidget* m_projection;
    QLabel* m_projectionNote;
    std::optional<ProjectionCheck> m_check;
    QString m_checkError;
};

}  // namespace reach
