#pragma once

#include <QWidget>

class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace reach {

class RuleSetModel;
class Session;

// The left panel: the project's workloads and evaluation sets in a tree, and below it the rule
// set as an editable table (edits re-classify live).
class ProjectBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ProjectBrowser(Session* session, QWidget* parent = nullptr);

    RuleSetModel* rulesModel() const { return m_rules; }
    QTreeWidget* tree() const { return m_tree; }

signals:
    void workloadActivated(int index);
    void evaluationSelected(int index);  // index into Session::evaluations(), -1 for none

private:
    void rebuild();
    void loadRules();
    void saveRules();

    Session* m_session;
    QTreeWidget* m_tree;
    QTreeWidgetItem* m_workloads = nullptr;
    QTreeWidgetItem* m_evaluations = nullptr;
    QTreeWidgetItem* m_ruleItem = nullptr;
    RuleSetModel* m_rules;
    QTableView* m_rulesView;
};

}  // namespace reach
