#pragma once

#include <QDialog>
#include <array>
#include <optional>

#include "core/analysis/profilediff.h"
#include "profilediffmodel.h"

class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;

namespace reach {

class Session;

// View > Compare Workloads...: two measured workloads of the open project, A (before) and B
// (after), compared by core's diffBreakdowns (the computation behind `reach-cli diff`): GPU time,
// busy share of the span, and tables per category, family and kernel (in both, only in A, only
// in B), each sortable. It follows the session: a re-classification recomputes it.
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

private:
    void fillPickers();
    void recompute();

    Session* m_session;
    QComboBox* m_a;
    QComboBox* m_b;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    std::array<ProfileDiffModel*, 5> m_models{};
    std::optional<ProfileDiff> m_diff;
};

}  // namespace reach
