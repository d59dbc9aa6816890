#pragma once

#include <QDialog>
#include <vector>

#include "ui/models/rulesuggestmodel.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace reach {

class Session;

// "Suggest rules for kernels without a name rule...": core's suggestRules
// (core/analysis/rulesuggest.h, the computation behind `reach-cli rules suggest`) for one
// measured workload or every one, each suggestion with its pattern, proposed category and where
// that came from, the time it would classify and what else it would re-classify. One click
// ("Accept" on its row, or "Accept all") puts the rule first in the set through the session's
// hand-edit path (renamed "(edited)", undoable), and the list is recomputed from the
// re-classified breakdowns when they arrive.
class RuleSuggestDialog : public QDialog {
    Q_OBJECT
public:
    // `workload`: the session's row to start with; -1 (or a published row) for every measured
    // workload.
    explicit RuleSuggestDialog(Session* session, int workload = -1, QWidget* parent = nullptr);

    // Shows the suggestions of that row (-1: every measured workload); false when the row is
    // not a measured workload.
    bool pick(int workload);
    RuleSuggestModel* model() const { return m_model; }
    QComboBox* picker() const { return m_picker; }
    QTableView* table() const { return m_table; }
    // The row's one-click button (nullptr when there is no such row).
    QPushButton* acceptButton(int row) const;
    QPushButton* acceptAllButton() const { return m_acceptAll; }
    QString summary() const;
    // What the buttons do; false when there is nothing to accept or the list is being
    // recomputed (a re-classification is under way).
    bool acceptSuggestion(int row);
    bool acceptAllSuggestions();
    // True while some shown workload's breakdown was made by another rule set than the
    // session's (the re-classification after an edit has not arrived yet).
    bool isStale() const;

private:
    void fillPicker();
    void recompute();
    void updateButtons();
    std::vector<int> shownWorkloads() const;
    bool applyAccepted(const std::vector<int>& rows);

    Session* m_session;
    QComboBox* m_picker;
    QLabel* m_summary;
    QTableView* m_table;
    RuleSuggestModel* m_model;
    QPushButton* m_acceptAll;
    std::vector<QPushButton*> m_buttons;  // per row, owned by the table
};

}  // namespace reach
