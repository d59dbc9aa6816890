#include "ui/dialogs/rulesuggestdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

#include "core/analysis/breakdown.h"
#include "ui/qtstrings.h"
#include "ui/session.h"

namespace reach {

namespace {

constexpr int kAllWorkloads = -1;
constexpr int kPatternWidth = 300;  // pixels

QString percent(double share) {
    return QString::number(100.0 * share, 'f', 2) + QStringLiteral(" %");
}

}  // namespace

RuleSuggestDialog::RuleSuggestDialog(Session* session, int workload, QWidget* parent)
    : QDialog(parent), m_session(session) {
    setWindowTitle(tr("Suggest Rules"));
    m_picker = new QComboBox(this);
    m_picker->setObjectName(QStringLiteral("suggestWorkload"));
    auto* form = new QFormLayout;
    form->addRow(tr("Workload:"), m_picker);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_model = new RuleSuggestModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    // The button first, where it is seen; a long pattern is elided in the middle (in full on
    // hover) so that where its category came from stays readable.
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(RuleSuggestModel::Pattern, QHeaderView::Interactive);
    header->resizeSection(RuleSuggestModel::Pattern, kPatternWidth);
    header->setSectionResizeMode(RuleSuggestModel::Basis, QHeaderView::Stretch);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);

    m_acceptAll = new QPushButton(tr("Accept All"), this);
    m_acceptAll->setToolTip(
        tr("Put every suggested rule first in the rule set (one edit; "
           "Edit > Undo takes it back)"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_acceptAll, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_acceptAll, &QPushButton::clicked, this, [this] { acceptAllSuggestions(); });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(1180, 520);

    connect(m_picker, &QComboBox::currentIndexChanged, this, &RuleSuggestDialog::recompute);
    connect(m_session, &Session::workloadsChanged, this, &RuleSuggestDialog::fillPicker);
    connect(m_session, &Session::rulesChanged, this, &RuleSuggestDialog::updateButtons);
    fillPicker();
    pick(workload);
}

void RuleSuggestDialog::fillPicker() {
    // Keep what was picked (by name) across a re-read or re-classification.
    const QString keep = m_picker->currentText();
    {
        const QSignalBlocker block(m_picker);
        m_picker->clear();
        m_picker->addItem(tr("Every measured workload"), kAllWorkloads);
        const auto& workloads = m_session->workloads();
        for (size_t i = 0; i < workloads.size(); ++i) {
            if (workloads[i].breakdown)  // published rows have shares only, no kernels
                m_picker->addItem(toQString(workloads[i].name), int(i));
        }
        if (const int at = m_picker->findText(keep); at >= 0)
            m_picker->setCurrentIndex(at);
    }
    recompute();
}

bool RuleSuggestDialog::pick(int workload) {
    const int at = m_picker->findData(workload);
    const bool found = at >= 0 && workload != kAllWorkloads;
    {
        const QSignalBlocker block(m_picker);
        m_picker->setCurrentIndex(found ? at : 0);
    }
    recompute();
    return found || workload == kAllWorkloads;
}

std::vector<int> RuleSuggestDialog::shownWorkloads() const {
    const auto& workloads = m_session->workloads();
    const int picked = m_picker->currentData().isValid() ? m_picker->currentData().toInt() : -1;
    std::vector<int> out;
    for (size_t i = 0; i < workloads.size(); ++i) {
        if (workloads[i].breakdown && (picked == kAllWorkloads || picked == int(i)))
            out.push_back(int(i));
    }
    return out;
}

bool RuleSuggestDialog::isStale() const {
    const auto& workloads = m_session->workloads();
    const std::string& hash = m_session->rules().hash();
    for (int i : shownWorkloads()) {
        if (workloads[size_t(i)].breakdown->rulesHash != hash)
            return true;
    }
    return false;
}

void RuleSuggestDialog::recompute() {
    // Core computes the suggestions (as `reach-cli rules suggest` does); this only lists them.
    std::vector<RuleSuggestModel::Entry> entries;
    const auto& workloads = m_session->workloads();
    for (int i : shownWorkloads()) {
        const QString name = toQString(workloads[size_t(i)].name);
        for (RuleSuggestion& s : suggestRules(*workloads[size_t(i)].breakdown))
            entries.push_back({name, std::move(s), false});
    }
    m_model->setEntries(std::move(entries));
    // The workload column says something only when several are listed.
    m_table->setColumnHidden(RuleSuggestModel::Workload, shownWorkloads().size() < 2);

    // One "Accept" button per row (the view drops index widgets when the model is reset).
    m_buttons.clear();
    for (int r = 0; r < m_model->rowCount(); ++r) {
        auto* button = new QPushButton(tr("Accept"), m_table);
        button->setToolTip(tr("Put this rule first in the rule set and re-classify"));
        connect(button, &QPushButton::clicked, this, [this, r] { acceptSuggestion(r); });
        m_table->setIndexWidget(m_model->index(r, RuleSuggestModel::Accept), button);
        m_buttons.push_back(button);
    }
    updateButtons();
}

void RuleSuggestDialog::updateButtons() {
    const bool stale = isStale();
    bool any = false;
    for (int r = 0; r < int(m_buttons.size()); ++r) {
        const bool open = !m_model->entry(r).accepted;
        m_buttons[size_t(r)]->setEnabled(open && !stale);
        m_buttons[size_t(r)]->setText(open ? tr("Accept") : tr("Accepted"));
        any = any || open;
    }
    m_acceptAll->setEnabled(any && !stale);
    m_summary->setText(summary());
}

QString RuleSuggestDialog::summary() const {
    const auto& workloads = m_session->workloads();
    const std::vector<int> shown = shownWorkloads();
    if (shown.empty())
        return tr("No measured workload: open or import a profile first.");
    QStringList lines;
    int nothing = 0;
    for (int i : shown) {
        const Breakdown& b = *workloads[size_t(i)].breakdown;
        int count = 0;
        double covered = 0;
        for (const RuleSuggestModel::Entry& e : m_model->entries()) {
            if (e.workload == toQString(workloads[size_t(i)].name)) {
                ++count;
                covered += e.suggestion.share;
            }
        }
        if (count == 0) {
            ++nothing;
            continue;
        }
        lines << tr("<b>%1</b>: %2 of GPU time classified; decided by name rules %3, by the "
                    "launching operator %4, unclassified %5. %n suggestion(s) cover %6.",
                    nullptr, count)
                     .arg(toQString(b.workload).toHtmlEscaped(), percent(b.classifiedShare),
                          percent(b.decisionShare(Decision::Rule)),
                          percent(b.decisionShare(Decision::Operator)),
                          percent(b.decisionShare(Decision::Unclassified)), percent(covered));
    }
    if (nothing > 0) {
        lines << (shown.size() == 1
                      ? tr("Every kernel is matched by a name rule: nothing to suggest.")
                      : tr("%n other workload(s): every kernel is matched by a name rule.", nullptr,
                           nothing));
    }
    if (isStale())
        lines << tr("<i>Re-classifying with the edited rules...</i>");
    else if (m_model->rowCount() > 0)
        lines << tr(
            "Accepted rules go first in the rule set; a guessed category should be "
            "checked first. Edit > Undo Rule Edit takes an accept back.");
    return lines.join(QStringLiteral("<br>"));
}

QPushButton* RuleSuggestDialog::acceptButton(int row) const {
    return row >= 0 && row < int(m_buttons.size()) ? m_buttons[size_t(row)] : nullptr;
}

bool RuleSuggestDialog::acceptSuggestion(int row) {
    if (row < 0 || row >= m_model->rowCount())
        return false;
    return applyAccepted({row});
}

bool RuleSuggestDialog::acceptAllSuggestions() {
    std::vector<int> rows;
    for (int r = 0; r < m_model->rowCount(); ++r)
        rows.push_back(r);
    return applyAccepted(rows);
}

bool RuleSuggestDialog::applyAccepted(const std::vector<int>& rows) {
    if (isStale())
        return false;
    // Several workloads can propose the same pattern: it goes in once, the first (largest).
    std::vector<RuleSuggestion> accepted;
    std::vector<int> marked;
    std::set<std::string> patterns;
    for (int r : rows) {
        const RuleSuggestModel::Entry& e = m_model->entry(r);
        if (e.accepted || !patterns.insert(e.suggestion.rule.pattern).second)
            continue;
        accepted.push_back(e.suggestion);
        marked.push_back(r);
    }
    if (accepted.empty())
        return false;
    // Core puts the accepted rules first, in this order (as `rules suggest --write` does). In
    // the GUI it is a hand edit like any other: the session names the set "<name> (edited)"
    // and keeps the set before it for undo.
    const RuleSet& current = m_session->rules();
    RuleSet next = acceptSuggestions(current, accepted);
    next.setName(current.name());
    m_session->editRules(std::move(next));
    for (int r : marked)
        m_model->markAccepted(r);
    updateButtons();
    return true;
}

}  // namespace reach
