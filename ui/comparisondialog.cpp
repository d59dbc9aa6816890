#include "comparisondialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "session.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

QString signedNumber(double v, int decimals) {
    return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', decimals);
}

QTableView* makeTable(ProfileDiffModel* model, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(ProfileDiffModel::SortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setSectionResizeMode(ProfileDiffModel::Key, QHeaderView::Stretch);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    // Categories and families have no launching operator.
    const bool kernels = model->list() != ProfileDiffModel::List::Categories &&
                         model->list() != ProfileDiffModel::List::Families;
    table->setColumnHidden(ProfileDiffModel::Operator, !kernels);
    return table;
}

}  // namespace

ComparisonDialog::ComparisonDialog(Session* session, QWidget* parent)
    : QDialog(parent), m_session(session) {
    setWindowTitle(tr("Compare Workloads"));
    m_a = new QComboBox(this);
    m_a->setObjectName(QStringLiteral("compareA"));
    m_b = new QComboBox(this);
    m_b->setObjectName(QStringLiteral("compareB"));
    auto* pick = new QFormLayout;
    pick->addRow(tr("A (before):"), m_a);
    pick->addRow(tr("B (after):"), m_b);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_tabs = new QTabWidget(this);
    const std::array<std::pair<ProfileDiffModel::List, QString>, 5> lists = {{
        {ProfileDiffModel::List::Categories, tr("Categories")},
        {ProfileDiffModel::List::Families, tr("Families")},
        {ProfileDiffModel::List::Kernels, tr("Kernels in both")},
        {ProfileDiffModel::List::OnlyA, tr("Only in A")},
        {ProfileDiffModel::List::OnlyB, tr("Only in B")},
    }};
    for (const auto& [list, title] : lists) {
        auto* model = new ProfileDiffModel(list, this);
        m_models[size_t(list)] = model;
        m_tabs->addTab(makeTable(model, this), title);
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pick);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    resize(980, 640);

    connect(m_a, &QComboBox::currentIndexChanged, this, &ComparisonDialog::recompute);
    connect(m_b, &QComboBox::currentIndexChanged, this, &ComparisonDialog::recompute);
    connect(m_session, &Session::workloadsChanged, this, &ComparisonDialog::fillPickers);
    fillPickers();
}

void ComparisonDialog::fillPickers() {
    // Keep what was picked (by name) across a re-read or re-classification.
    const QString keepA = m_a->currentText(), keepB = m_b->currentText();
    const QSignalBlocker blockA(m_a), blockB(m_b);
    m_a->clear();
    m_b->clear();
    const auto& workloads = m_session->workloads();
    for (size_t i = 0; i < workloads.size(); ++i) {
        if (!workloads[i].breakdown)
            continue;  // published rows have shares only, no kernels to compare
        const QString name = toQString(workloads[i].name);
        m_a->addItem(name, int(i));
        m_b->addItem(name, int(i));
    }
    if (const int at = m_a->findText(keepA); at >= 0)
        m_a->setCurrentIndex(at);
    if (const int at = m_b->findText(keepB); at >= 0)
        m_b->setCurrentIndex(at);
    else if (m_b->count() > 1 && m_b->currentIndex() == m_a->currentIndex())
        m_b->setCurrentIndex(1);
    recompute();
}

bool ComparisonDialog::compare(int a, int b) {
    const int ia = m_a->findData(a), ib = m_b->findData(b);
    if (ia < 0 || ib < 0)
        return false;
    {
        const QSignalBlocker blockA(m_a), blockB(m_b);
        m_a->setCurrentIndex(ia);
        m_b->setCurrentIndex(ib);
    }
    recompute();
    return m_diff.has_value();
}

void ComparisonDialog::recompute() {
    m_diff.reset();
    const auto& workloads = m_session->workloads();
    const int a = m_a->currentData().isValid() ? m_a->currentData().toInt() : -1;
    const int b = m_b->currentData().isValid() ? m_b->currentData().toInt() : -1;
    const bool ok = a >= 0 && b >= 0 && size_t(a) < workloads.size() &&
                    size_t(b) < workloads.size() && workloads[size_t(a)].breakdown &&
                    workloads[size_t(b)].breakdown;
    if (ok)
        m_diff = diffBreakdowns(*workloads[size_t(a)].breakdown, *workloads[size_t(b)].breakdown);
    for (ProfileDiffModel* model : m_models) {
        if (m_diff)
            model->setDiff(*m_diff);
        else
            model->clear();
    }
    m_summary->setText(summary());
}

QString ComparisonDialog::summary() const {
    if (!m_diff)
        return tr("Pick two measured workloads: A (before) and B (after).");
    const ProfileDiff& d = *m_diff;
    const double rel = d.a.gpuTimeUs > 0 ? 100.0 * d.gpuDeltaUs() / d.a.gpuTimeUs : 0.0;
    return tr("GPU time %1 ms -> %2 ms (%3 ms, %4 %); busy %5 % -> %6 % of the span (%7 pp). "
              "Kernels matched by display name and launching operator: %8 in both, %9 only in "
              "A, %10 only in B. Changes are B - A.")
        .arg(d.a.gpuTimeUs / 1000.0, 0, 'f', 3)
        .arg(d.b.gpuTimeUs / 1000.0, 0, 'f', 3)
        .arg(signedNumber(d.gpuDeltaUs() / 1000.0, 3))
        .arg(signedNumber(rel, 1))
        .arg(100.0 * d.a.busyShare(), 0, 'f', 1)
        .arg(100.0 * d.b.busyShare(), 0, 'f', 1)
        .arg(signedNumber(100.0 * d.busyShareDelta(), 1))
        .arg(d.kernels.size())
        .arg(d.onlyA.size())
        .arg(d.onlyB.size());
}

}  // namespace reach
