#include "ui/views/projectbrowser.h"

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "core/base/inputerror.h"
#include "ui/models/rulesetmodel.h"
#include "ui/recentfolders.h"
#include "ui/session.h"

namespace reach {

namespace {
enum ItemKind { WorkloadItem = 1, EvaluationItem = 2 };
constexpr int KindRole = Qt::UserRole;
constexpr int IndexRole = Qt::UserRole + 1;
}  // namespace

ProjectBrowser::ProjectBrowser(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
    m_tree = new QTreeWidget(this);
    m_tree->setHeaderLabels({tr("Project"), tr("")});
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->setRootIsDecorated(true);

    m_rules = new RuleSetModel(this);
    m_rulesView = new QTableView(this);
    m_rulesView->setModel(m_rules);
    m_rulesView->horizontalHeader()->setSectionResizeMode(RuleSetModel::Pattern,
                                                          QHeaderView::Stretch);
    m_rulesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rulesView->setWordWrap(false);
    m_rulesView->setColumnHidden(RuleSetModel::Note, true);

    auto* add = new QToolButton(this);
    add->setText(QStringLiteral("+"));
    add->setToolTip(tr("Add a rule above the selected one"));
    auto* remove = new QToolButton(this);
    remove->setText(QStringLiteral("-"));
    remove->setToolTip(tr("Remove the selected rule"));
    auto* load = new QToolButton(this);
    load->setText(tr("Load..."));
    auto* save = new QToolButton(this);
    save->setText(tr("Save..."));
    auto* ruleButtons = new QHBoxLayout;
    ruleButtons->addWidget(new QLabel(tr("Rules (first match wins)"), this), 1);
    ruleButtons->addWidget(add);
    ruleButtons->addWidget(remove);
    ruleButtons->addWidget(load);
    ruleButtons->addWidget(save);
    auto* rulesPanel = new QWidget(this);
    auto* rulesLayout = new QVBoxLayout(rulesPanel);
    rulesLayout->setContentsMargins(0, 0, 0, 0);
    rulesLayout->addLayout(ruleButtons);
    rulesLayout->addWidget(m_rulesView, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("browserSplitter"));
    split->addWidget(m_tree);
    split->addWidget(rulesPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(add, &QToolButton::clicked, this, [this] {
        const int at = std::max(0, m_rulesView->currentIndex().row());
        Rule rule;
        rule.pattern = "new_kernel_name_pattern";
        rule.category = Category::Addressable;
        m_rules->insertRule(at, rule);
        m_rulesView->setCurrentIndex(m_rules->index(at, RuleSetModel::Pattern));
        m_rulesView->edit(m_rulesView->currentIndex());
    });
    connect(remove, &QToolButton::clicked, this,
            [this] { m_rules->removeRuleAt(m_rulesView->currentIndex().row()); });
    connect(load, &QToolButton::clicked, this, &ProjectBrowser::loadRules);
    connect(save, &QToolButton::clicked, this, &ProjectBrowser::saveRules);
    connect(m_rules, &RuleSetModel::rulesEdited, m_session,
            [this](const RuleSet& rules) { m_session->editRules(rules); });
    connect(m_session, &Session::rulesChanged, this, [this] {
        if (m_rules->rules().hash() != m_session->rules().hash() ||
            m_rules->rules().name() != m_session->rules().name())
            m_rules->setRules(m_session->rules());
        rebuild();
    });
    connect(m_session, &Session::workloadsChanged, this, &ProjectBrowser::rebuild);
    connect(m_session, &Session::evaluationsChanged, this, &ProjectBrowser::rebuild);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && item->data(0, KindRole).toInt() == EvaluationItem)
            emit evaluationSelected(item->data(0, IndexRole).toInt());
        if (item && item->data(0, KindRole).toInt() == WorkloadItem)
            emit workloadSelected(item->data(0, IndexRole).toInt());
    });
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        if (QMenu* menu = contextMenuFor(m_tree->itemAt(pos))) {
            menu->exec(m_tree->viewport()->mapToGlobal(pos));
            delete menu;
        }
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (item && item->data(0, KindRole).toInt() == WorkloadItem)
            emit workloadActivated(item->data(0, IndexRole).toInt());
    });
    m_rules->setRules(m_session->rules());
    rebuild();
}

void ProjectBrowser::rebuild() {
    m_tree->clear();
    const auto& workloads = m_session->workloads();
    m_workloads = new QTreeWidgetItem(m_tree, {tr("Workloads"), QString::number(workloads.size())});
    // The axes' short labels, so a narrow panel names rows as the plots do.
    const std::vector<RowLabel> labels = rowLabels(workloads);
    for (size_t i = 0; i < workloads.size(); ++i) {
        const ProjectWorkload& w = workloads[i];
        QString detail = toQString(labels[i].tag);
        if (w.breakdown)
            detail = (detail.isEmpty() ? QString() : detail + QStringLiteral(", ")) +
                     tr("%1 ms").arg(w.breakdown->gpuTimeUs / 1000.0, 0, 'f', 1);
        auto* item = new QTreeWidgetItem(m_workloads, {toQString(labels[i].name), detail});
        item->setData(0, KindRole, WorkloadItem);
        item->setData(0, IndexRole, int(i));
        // The full name (the column may cut it), where it is from and what it measures.
        item->setToolTip(
            0, toQString(w.name) + QLatin1Char('\n') + toQString(w.origin) +
                   (w.workload ? QLatin1Char('\n') + QString::fromStdString(w.workload->source)
                               : QString()));
        item->setToolTip(1, item->toolTip(0));
    }
    const auto& sets = m_session->evaluations();
    m_evaluations =
        new QTreeWidgetItem(m_tree, {tr("Evaluation sets"), QString::number(sets.size())});
    for (size_t i = 0; i < sets.size(); ++i) {
        const EvaluationSet& s = sets[i];
        QString detail = tr("%1/%2").arg(s.winners).arg(s.denominator);
        if (s.medianSpeedup)
            detail += tr(", %1x").arg(*s.medianSpeedup, 0, 'g', 4);
        auto* item = new QTreeWidgetItem(m_evaluations, {toQString(s.name), detail});
        item->setData(0, KindRole, EvaluationItem);
        item->setData(0, IndexRole, int(i));
        item->setToolTip(0, toQString(s.name) + QStringLiteral("\n") + toQString(s.origin));
        item->setToolTip(1, item->toolTip(0));
    }
    const RuleSet& rules = m_session->rules();
    m_ruleItem =
        new QTreeWidgetItem(m_tree, {tr("Rule set: %1").arg(QString::fromStdString(rules.name())),
                                     tr("%1 rules").arg(rules.size())});
    m_ruleItem->setToolTip(0, tr("hash %1").arg(QString::fromStdString(rules.hash())));
    m_tree->expandAll();
}

QMenu* ProjectBrowser::contextMenuFor(QTreeWidgetItem* item) {
    const int kind = item ? item->data(0, KindRole).toInt() : 0;
    if (kind != WorkloadItem && kind != EvaluationItem)
        return nullptr;
    auto* menu = new QMenu(this);
    const QString what = kind == WorkloadItem ? tr("workload") : tr("evaluation set");
    const int index = item->data(0, IndexRole).toInt();
    menu->addAction(tr("Rename %1...").arg(what), this, [this, kind, index, what] {
        QTreeWidgetItem* it = kind == WorkloadItem ? workloadItem(index) : evaluationItem(index);
        if (!it)
            return;
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename %1").arg(what), tr("Name:"),
                                                   QLineEdit::Normal, it->text(0), &ok);
        if (ok)
            renameItem(it, name);
    });
    menu->addAction(tr("Remove %1").arg(what), this, [this, kind, index] {
        removeItem(kind == WorkloadItem ? workloadItem(index) : evaluationItem(index));
    });
    return menu;
}

bool ProjectBrowser::renameItem(QTreeWidgetItem* item, const QString& name) {
    if (!item)
        return false;
    const int index = item->data(0, IndexRole).toInt();
    switch (item->data(0, KindRole).toInt()) {
        case WorkloadItem:
            return m_session->renameWorkload(index, name);
        case EvaluationItem:
            return m_session->renameEvaluationSet(index, name);
    }
    return false;
}

bool ProjectBrowser::removeItem(QTreeWidgetItem* item) {
    if (!item)
        return false;
    const int index = item->data(0, IndexRole).toInt();
    switch (item->data(0, KindRole).toInt()) {
        case WorkloadItem:
            return m_session->removeWorkload(index);
        case EvaluationItem:
            return m_session->removeEvaluationSet(index);
    }
    return false;
}

QTreeWidgetItem* ProjectBrowser::workloadItem(int index) const {
    return m_workloads && index >= 0 && index < m_workloads->childCount()
               ? m_workloads->child(index)
               : nullptr;
}

QTreeWidgetItem* ProjectBrowser::evaluationItem(int index) const {
    return m_evaluations && index >= 0 && index < m_evaluations->childCount()
               ? m_evaluations->child(index)
               : nullptr;
}

void ProjectBrowser::loadRules() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load rule set"),
                                                      chooserFolder(QStringLiteral("rules")),
                                                      tr("Rule sets (*.json)"));
    if (path.isEmpty())
        return;
    rememberChoice(QStringLiteral("rules"), path);
    try {
        m_session->setRules(RuleSet::fromFile(path.toStdString()));
    } catch (const InputError& e) {
        QMessageBox::warning(this, tr("Rule set"), QString::fromUtf8(e.what()));
    }
}

bool ProjectBrowser::saveRulesTo(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(QByteArray::fromStdString(m_session->rules().toJson())) < 0) {
        if (error)
            *error = tr("%1: cannot write").arg(path);
        return false;
    }
    m_session->markRulesSaved();
    return true;
}

void ProjectBrowser::saveRules() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save rule set"),
                                                      chooserFolder(QStringLiteral("rules")),
                                                      tr("Rule sets (*.json)"));
    if (path.isEmpty())
        return;
    rememberChoice(QStringLiteral("rules"), path);
    QString error;
    if (!saveRulesTo(path, &error))
        QMessageBox::warning(this, tr("Rule set"), error);
}

}  // namespace reach
