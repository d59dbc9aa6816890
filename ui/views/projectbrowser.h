#pragma once

#include <QWidget>

class QMenu;
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
    QTableView* rulesView() const { return m_rulesView; }
    // Writes the session's rule set as a rule file; it then has no unsaved edits.
    bool saveRulesTo(const QString& path, QString* error = nullptr);
    void saveRules();  // asks where

    // The context menu of a workload or evaluation set item (Rename..., Remove); nullptr for
    // other items. The caller owns it.
    QMenu* contextMenuFor(QTreeWidgetItem* item);
    bool renameItem(QTreeWidgetItem* item, const QString& name);
    bool removeItem(QTreeWidgetItem* item);
    // The tree item of workload `index` (or evaluation set), nullptr when there is none.
    QTreeWidgetItem* workloadItem(int index) const;
    QTreeWidgetItem* evaluationItem(int index) const;

signals:
    void workloadSelected(int index);  // a single click: every view shows that workload
    void workloadActivated(int index);
    void evaluationSelected(int index);  // index into Session::evaluations(), -1 for none

private:
    void rebuild();
    void loadRules();

    Session* m_session;
    QTreeWidget* m_tree;
    QTreeWidgetItem* m_workloads = nullptr;
    QTreeWidgetItem* m_evaluations = nullptr;
    QTreeWidgetItem* m_ruleItem = nullptr;
    RuleSetModel* m_rules;
    QTableView* m_rulesView;
};

}  // namespace reach
